/**
 * The report's only way to put text on the page. Everything a run folder holds was written by models,
 * tools or people and is untrusted, so every string reaches the HTML through {@link esc}; numbers and
 * durations are formatted here so the graph, the timeline and the tables print them alike.
 */

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Text safe in element content and in quoted attributes alike (one function, so no call site can pick
 * the weaker one). Control characters other than tab and newline are dropped: they cannot be shown and
 * some are invalid in HTML.
 */
export function esc(text: unknown): string {
	return String(text)
		.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "")
		.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** At most `max` characters, and how many were left out, so a huge output cannot swamp the page. */
export function clip(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** A value as a person reads it: text as is, anything else as indented JSON. */
export function shown(value: unknown): string {
	if (typeof value === "string") return value;
	if (value === undefined) return "";
	try {
		return JSON.stringify(value, null, 2) ?? String(value);
	} catch {
		return String(value);
	}
}

/**
 * A duration in the unit a person compares at a glance: `850ms`, `12.3s`, `4m05s`, `2h10m`. Scripted
 * runs last milliseconds and real ones hours, and the same page must read well for both.
 */
export function ms(n: number): string {
	if (!Number.isFinite(n) || n < 0) return "?";
	if (n < 1000) return `${Math.round(n)}ms`;
	if (n < 60_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}s`;
	const s = Math.round(n / 1000);
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
	return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Tokens with thousands separators: exact figures, because tables are compared against usage.json. */
export function tokens(n: number): string {
	return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "?";
}

/** Cost in the provider's currency, to the precision small scripted or cached turns need. */
export function cost(n: number): string {
	return Number.isFinite(n) ? `$${n.toFixed(4)}` : "?";
}

/** A clock time from an ISO stamp, kept as written when it does not parse (it is the run's own text). */
export function clock(iso: string | undefined): string {
	if (!iso) return "";
	const t = Date.parse(iso);
	return Number.isNaN(t)
		? iso
		: new Date(t)
				.toISOString()
				.replace("T", " ")
				.replace(/\.\d+Z$/, "Z");
}

/** The width of `text` in pixels at `px` in the page's sans-serif font; an estimate, since SVG text cannot be measured without a browser. */
export function textWidth(text: string, px: number): number {
	return Math.ceil(text.length * px * 0.6);
}

/**
 * `text` cut to fit `width` pixels at `px`, with an ellipsis; the caller keeps the whole text in a
 * `<title>` so nothing is lost, only folded.
 */
export function fit(text: string, width: number, px: number): string {
	const max = Math.max(1, Math.floor(width / (px * 0.6)));
	return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}

/** A number as an SVG coordinate: rounded, because fractions of a pixel only make the file longer. */
export function px(n: number): string {
	return String(Math.round(n * 10) / 10);
}
