/**
 * What a run with `--reuse` took from the earlier run, in sum: how many visits were reused and how many
 * ran, what the reused ones had spent, and each visit's decision (why every one that ran did). It is the
 * `reuse` field of `result.json`, and what the CLI line and the extension's answer say.
 *
 *   reuseSummary(result.visits) → { from: "…/2026-…-wide", reused: 12, ran: 1, saved: { totalTokens: 20400, … },
 *                                   visits: [{ path: "wide[12]/look", outcome: "ran", why: "the item changed (`item`)" }, …] }
 */
import { addUsage, formatTokens, type ReuseNote, type Usage } from "../runtime/index.ts";

/** One visit's decision, as `result.json` lists it. */
export type ReuseRow =
	| { path: string; outcome: "reused"; from: string; saved: Usage }
	| { path: string; outcome: "ran"; why: string };

/** The run's reuse in sum. */
export interface ReuseSummary {
	from: string;
	reused: number;
	ran: number;
	/** What the reused visits spent when they were played; this run counted 0 for them. */
	saved: Usage;
	visits: ReuseRow[];
}

/** The summary of a run's visits, or undefined when none was decided by reuse. */
export function reuseSummary(visits: readonly { path: string; reuse?: ReuseNote }[]): ReuseSummary | undefined {
	const rows: ReuseRow[] = [];
	let from: string | undefined;
	let saved: Usage | undefined;
	for (const v of visits) {
		const n = v.reuse;
		if (!n) continue;
		from ??= n.from;
		if (n.outcome === "reused") {
			rows.push({ path: v.path, outcome: "reused", from: n.path, saved: n.saved });
			saved = addUsage(...(saved ? [saved] : []), n.saved);
		} else rows.push({ path: v.path, outcome: "ran", why: n.why });
	}
	if (from === undefined) return undefined;
	const reused = rows.filter((r) => r.outcome === "reused").length;
	return { from, reused, ran: rows.length - reused, saved: saved ?? addUsage(), visits: rows };
}

/** `reused 11 of 13 visits (saved 20.4k tokens)`, for the line a run ends with. */
export function reuseLine(s: ReuseSummary): string {
	const total = s.reused + s.ran;
	return `reused ${s.reused} of ${total} visit${total === 1 ? "" : "s"} (saved ${formatTokens(s.saved.totalTokens)} tokens${s.saved.cost > 0 ? `, $${s.saved.cost.toFixed(4)}` : ""})`;
}

/**
 * A visit's decision in the words of a progress line: `reused from <run> (saved 1.2k tokens)` or `ran:
 * <why>`. `run` is the earlier run as the person should read it; `path` the visit's own path here.
 */
export function reuseWords(n: ReuseNote, run: string, path: string): string {
	if (n.outcome === "ran") return `ran: ${n.why}`;
	const moved = n.path !== path ? ` as ${n.path}` : "";
	const files = (list: string[]) => `${list.length} file${list.length === 1 ? "" : "s"}`;
	const wrote = n.reapplied?.length
		? `; its change to ${files(n.reapplied)} written again`
		: n.inTree?.length
			? `; its change to ${files(n.inTree)} is already in the tree`
			: "";
	return `reused from ${run}${moved} (saved ${formatTokens(n.saved.totalTokens)} tokens${wrote})`;
}
