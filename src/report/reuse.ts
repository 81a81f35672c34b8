/**
 * The report's account of reuse (a run with `--reuse`): which earlier run it took visits from, what that
 * saved, and for each visit whether it was taken or why it ran, from the journal's `visit_end` facts (the
 * last end of each path, so a resumed run counts a visit once).
 *
 *   reuseFacts(journal) → { from: "…/2026-…-wide", visits: [{ path: "wide[12]/look", outcome: "ran", why: "…" }, …] }
 */
import { type ReuseSummary, reuseLine, reuseSummary } from "../identity/index.ts";
import type { JournalEntry } from "../runs/index.ts";
import type { ReuseNote } from "../runtime/index.ts";
import { esc, tokens } from "./format.ts";

/** The run's reuse in sum, from its journal; undefined when it reused from no run. */
export function reuseFacts(journal: readonly JournalEntry[]): ReuseSummary | undefined {
	const last = new Map<string, ReuseNote>();
	for (const e of journal) if (e.type === "visit_end" && e.ended.reuse) last.set(e.path, e.ended.reuse);
	return reuseSummary([...last].map(([path, reuse]) => ({ path, reuse })));
}

/** The fact line of the page's header: "11 of 13 visits from …, 20.4k tokens saved". */
export function reuseFactLine(s: ReuseSummary): string {
	return `${reuseLine(s)} from ${s.from}`;
}

/** The section: one row per visit, taken (from which visit, what it had spent) or ran (and why). */
export function reuseHtml(journal: readonly JournalEntry[]): string {
	const s = reuseFacts(journal);
	if (!s) return `<p class="empty">This run reused nothing: it was not started with <code>--reuse</code>.</p>`;
	const rows = s.visits.map((v) =>
		v.outcome === "reused"
			? `<tr class="reused" data-path="${esc(v.path)}"><td>${esc(v.path)}</td><td>reused</td><td>from ${esc(v.from)}</td><td class="num">${esc(tokens(v.saved.totalTokens))}</td></tr>`
			: `<tr class="ran" data-path="${esc(v.path)}"><td>${esc(v.path)}</td><td>ran</td><td>${esc(v.why)}</td><td class="num"></td></tr>`,
	);
	return [
		`<p>Reused from <code>${esc(s.from)}</code>: ${esc(reuseLine(s))}. A reused visit's usage is counted 0 here; the tokens column is what it spent when it was played.</p>`,
		`<table class="reuse"><thead><tr><th>visit</th><th>decision</th><th>from, or why it ran</th><th>tokens saved</th></tr></thead>`,
		`<tbody>${rows.join("\n")}</tbody></table>`,
	].join("\n");
}
