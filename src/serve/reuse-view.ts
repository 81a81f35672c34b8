/**
 * A run's reuse as its page shows it (a run started with `--reuse`, or a rerun from a node): the line the
 * CLI ends with ("reused 11 of 13 visits (saved 20.4k tokens)"), the run it reused, and per node and per
 * visit what a reused visit had spent when it was played, which this run counted as 0. From the journal's
 * `visit_end` facts, the last end of each path (a resumed run counts a visit once).
 *
 *   reuseView(journal) → { from: "…/2026-…-tri", line: "reused 2 of 3 visits (saved 400 tokens)",
 *                          visits: { "1:a": 200 }, nodes: { a: 200 }, … }
 */
import { reuseLine, reuseSummary } from "../identity/index.ts";
import type { JournalEntry } from "../runs/index.ts";
import { addressOf, type ReuseNote } from "../runtime/index.ts";

/** The reuse facts of a run's page. */
export interface ReuseView {
	/** The run it reused from: a run folder, or a database run id. */
	from: string;
	line: string;
	reused: number;
	ran: number;
	saved: { tokens: number; cost: number };
	/** Tokens a reused visit had spent, keyed `life:path` as the page's visits are. */
	visits: Record<string, number>;
	/** The same summed per node address (agent and swarm visits: blocks only sum their children). */
	nodes: Record<string, number>;
}

/** The run's reuse, or undefined when it reused nothing. */
export function reuseView(journal: readonly JournalEntry[]): ReuseView | undefined {
	const last = new Map<string, { life: number; kind: string; note: ReuseNote }>();
	for (const e of journal)
		if (e.type === "visit_end" && e.ended.reuse) last.set(e.path, { life: e.life, kind: e.kind, note: e.ended.reuse });
	const summary = reuseSummary([...last].map(([path, v]) => ({ path, reuse: v.note })));
	if (!summary) return undefined;
	const visits: Record<string, number> = {};
	const nodes: Record<string, number> = {};
	for (const [path, { life, kind, note }] of last) {
		if (note.outcome !== "reused") continue;
		visits[`${life}:${path}`] = note.saved.totalTokens;
		if (kind !== "agent" && kind !== "swarm") continue;
		const a = addressOf(path);
		nodes[a] = (nodes[a] ?? 0) + note.saved.totalTokens;
	}
	return {
		from: summary.from,
		line: reuseLine(summary),
		reused: summary.reused,
		ran: summary.ran,
		saved: { tokens: summary.saved.totalTokens, cost: summary.saved.cost },
		visits,
		nodes,
	};
}
