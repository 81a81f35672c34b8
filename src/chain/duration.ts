/**
 * Durations as people write them in chain flags (`90s`, `10m`, `1h30m`, `500ms`, `1d`), always with
 * units, because a bare `500` could mean seconds or milliseconds; a flag that wants bare seconds
 * (`--timeout 60`) says so itself. The spelling is the flow files' (grammar/duration.ohm): units largest
 * first, each once, no zero part, no leading zero, so a user meets one duration syntax in the product.
 */

const UNITS = [
	["d", 86_400_000],
	["h", 3_600_000],
	["m", 60_000],
	["s", 1_000],
	["ms", 1],
] as const;

const PART = "([1-9]\\d*)";
const DURATION = new RegExp(`^(?:${PART}d)?(?:${PART}h)?(?:${PART}m(?!s))?(?:${PART}s)?(?:${PART}ms)?$`);

/** Milliseconds in a duration such as `1h30m` or `500ms`; undefined for anything else, bare numbers included. */
export function parseDuration(text: string): number | undefined {
	const match = DURATION.exec(text);
	if (!match || text === "") return undefined;
	let total = 0;
	for (let i = 0; i < UNITS.length; i++) {
		const digits = match[i + 1];
		if (digits !== undefined) total += Number(digits) * UNITS[i][1];
	}
	return Number.isSafeInteger(total) ? total : undefined;
}

/**
 * The canonical text of a duration: whole seconds split into `h`, `m` and `s` (`90s` prints `1m30s`),
 * anything else in plain `ms` (`1500ms`) so no precision is hidden. Every positive whole number of
 * milliseconds prints as text {@link parseDuration} reads back to the same number.
 */
export function formatDuration(ms: number): string {
	if (!Number.isSafeInteger(ms) || ms <= 0 || ms % 1000 !== 0) return `${ms}ms`;
	let rest = ms;
	let text = "";
	for (const [unit, size] of UNITS) {
		if (unit === "d" || unit === "ms") continue;
		const count = Math.floor(rest / size);
		if (count > 0) text += `${count}${unit}`;
		rest -= count * size;
	}
	return text;
}
