/**
 * A run with reuse planned before a token is spent: the flow walked on dry ports (no model is called, no
 * script runs, git only hashes trees and reads the diff), each visit asked of the earlier run as a run
 * would ask it. A visit that would run goes on from its earlier end, so the walk reaches what follows it;
 * what follows is then only as certain as that output, and says so.
 *
 *   planReuse(flow, input, { entries, from, cwd, models }) →
 *     { visits: 13, reused: 11, runs: 1, mayChange: 1, runsTokens: 1700, …,
 *       rows: [{ path: "wide[12]/look", status: "runs", why: "the item changed (`item`)", tokens: 1700, cost: 0 }, …] }
 *
 * The rows are data (the web view's "rerun from here" draws them); `showReusePlan` words them for a terminal.
 */
import type { CheckedFlow, Value } from "../language/index.ts";
import {
	DRY_ASK,
	DRY_CHECK,
	dryGit,
	instantClock,
	drySpawn,
	type GitPort,
	type ReuseQuery,
	type RunOptions,
	UNKNOWN_TREE,
} from "../engine/index.ts";
import { runFlow } from "../kinds/run.ts";
import type { JournalEntry } from "../runs/index.ts";
import { addressOf, formatTokens, type ReuseNote } from "../runtime/index.ts";
import { reuseSource, spentBy } from "./source.ts";

/** One visit of the plan. */
export interface ReusePlanRow {
	path: string;
	node: string;
	kind: string;
	/**
	 * `reused`: certain, what it reads is certain; `runs`: it plays; `may-change`: it would be reused, but it
	 * reads an output (or a tree) that a visit that runs may change.
	 */
	status: "reused" | "runs" | "may-change";
	/** Why it runs, or what it depends on. */
	why?: string;
	/** The visit of the earlier run it is taken from or compared with. */
	earlier?: string;
	/** What that visit spent in the earlier run (0 when there is none). */
	tokens: number;
	cost: number;
}

/** The plan of a run with reuse, in sum and per visit. */
export interface ReusePlan {
	from: string;
	rows: ReusePlanRow[];
	visits: number;
	reused: number;
	runs: number;
	mayChange: number;
	/** What the visits that run spent in the earlier run: about what they will spend. */
	runsTokens: number;
	runsCost: number;
	/** The same for the visits that may change. */
	mayTokens: number;
	mayCost: number;
	/** What the reused visits spent there, not spent again. */
	savedTokens: number;
	savedCost: number;
}

/** What a plan is made with: the earlier run, and the run's own settings (as a run would use them). */
export interface PlanOptions
	extends Pick<RunOptions, "models" | "plugins" | "scripts" | "handoff" | "toolSchemas" | "leaveOut" | "timeoutMs"> {
	/** The earlier run's journal entries, and how the new run would name it. */
	entries: readonly JournalEntry[];
	from: string;
	cwd: string;
	/** The real git port: trees are hashed and the diff read; nothing is committed, copied or written. */
	git?: GitPort;
	/** Node addresses to play again whatever their identity ("rerun from this node"; see `SourceOptions.force`). */
	force?: readonly string[];
}

/** Plans a run of `flow` on `input` reusing from an earlier run, at zero model calls. */
export async function planReuse(flow: CheckedFlow, input: Value, options: PlanOptions): Promise<ReusePlan> {
	const rows: ReusePlanRow[] = [];
	const tainted = new Map<string, string>();
	const source = reuseSource(options.entries, options.from, {
		planning: true,
		...(options.force ? { force: options.force } : {}),
		decided: (q, note) => rows.push(rowOf(q, note, tainted, source.visits)),
	});
	const dry = dryGit(options.cwd);
	const git: GitPort = options.git
		? { ...dry, diff: options.git.diff, root: options.git.root, tree: options.git.tree, files: options.git.files }
		: dry;
	await runFlow(flow, input, {
		spawn: drySpawn(),
		models: options.models,
		cwd: options.cwd,
		ask: DRY_ASK,
		check: DRY_CHECK,
		git,
		// A plan walks the flow: a `wait` in it does not sleep.
		clock: instantClock(),
		retryBackoffMs: 0,
		reuse: source,
		...(options.plugins ? { plugins: options.plugins } : {}),
		...(options.scripts ? { scripts: options.scripts } : {}),
		...(options.handoff ? { handoff: options.handoff } : {}),
		...(options.toolSchemas ? { toolSchemas: options.toolSchemas } : {}),
		...(options.leaveOut ? { leaveOut: options.leaveOut } : {}),
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
	});
	const sum = (status: ReusePlanRow["status"], key: "tokens" | "cost") =>
		rows.filter((r) => r.status === status).reduce((n, r) => n + r[key], 0);
	return {
		from: options.from,
		rows,
		visits: rows.length,
		reused: rows.filter((r) => r.status === "reused").length,
		runs: rows.filter((r) => r.status === "runs").length,
		mayChange: rows.filter((r) => r.status === "may-change").length,
		runsTokens: sum("runs", "tokens"),
		runsCost: sum("runs", "cost"),
		mayTokens: sum("may-change", "tokens"),
		mayCost: sum("may-change", "cost"),
		savedTokens: sum("reused", "tokens"),
		savedCost: sum("reused", "cost"),
	};
}

/**
 * A decision as a row. A visit that runs or may change marks its node and the blocks around it, so a visit
 * reading any of them may change too (it is reused only if what it reads comes out the same).
 */
function rowOf(
	q: ReuseQuery,
	note: ReuseNote,
	tainted: Map<string, string>,
	visits: ReturnType<typeof reuseSource>["visits"],
): ReusePlanRow {
	const base = { path: q.path, node: q.node, kind: q.kind };
	const upstream = q.depends.find((id) => tainted.has(id));
	const tree = q.identity.shown?.tree;
	let row: ReusePlanRow;
	if (note.outcome === "reused") {
		const spent = { tokens: note.saved.totalTokens, cost: note.saved.cost, earlier: note.path };
		row = upstream
			? { ...base, status: "may-change", why: `it reads \`${upstream}\`, which ${tainted.get(upstream)}`, ...spent }
			: { ...base, status: "reused", ...spent };
	} else {
		const same = visits.get(q.path);
		const spent = same ? { tokens: spentBy(same).totalTokens, cost: spentBy(same).cost, earlier: same.path } : {};
		const unknown = tree?.startsWith(UNKNOWN_TREE) ? tree.slice(UNKNOWN_TREE.length) : undefined;
		const onlyTree = note.changed.length === 1 && note.changed[0] === "tree" && unknown !== undefined;
		row = onlyTree
			? {
					...base,
					status: "may-change",
					why: `it reads the tree, which \`${addressOf(unknown ?? "")}\` may change`,
					tokens: 0,
					cost: 0,
					...spent,
				}
			: { ...base, status: "runs", why: note.why, tokens: 0, cost: 0, ...spent };
	}
	if (row.status !== "reused") {
		const said = row.status === "runs" ? "runs" : "may change";
		for (const id of idsOf(q.path)) if (!tainted.has(id)) tainted.set(id, said);
	}
	return row;
}

/** The node ids along a visit path: `deliver#2/work[1]/code` → deliver, work, code. */
function idsOf(path: string): string[] {
	return addressOf(path).split("/");
}

/** The plan for a terminal: one line per visit, then the sum ("runs 2 of 13 visits, about 1.7k tokens"). */
export function showReusePlan(plan: ReusePlan, from: string): string {
	const width = Math.max(0, ...plan.rows.map((r) => r.path.length));
	const money = (cost: number) => (cost > 0 ? `, $${cost.toFixed(4)}` : "");
	const lines = [`reuse from ${from}:`];
	for (const r of plan.rows) {
		const spent = r.tokens || r.cost ? ` · ${formatTokens(r.tokens)} tokens${money(r.cost)}` : "";
		const mark = r.status === "reused" ? "✓" : r.status === "runs" ? "▶" : "?";
		const what = r.status === "reused" ? "reused" : r.status === "runs" ? `runs: ${r.why}` : `may change: ${r.why}`;
		lines.push(`  ${mark} ${r.path.padEnd(width)}  ${what}${spent}`);
	}
	lines.push(summaryLine(plan));
	return lines.join("\n");
}

/** "runs 2 of 13 visits, about 1.7k tokens; 1 may change (about 900 tokens); 10 reused (1.2k tokens saved)". */
export function summaryLine(plan: ReusePlan): string {
	const money = (cost: number) => (cost > 0 ? `, $${cost.toFixed(4)}` : "");
	const parts = [
		`runs ${plan.runs} of ${plan.visits} visit${plan.visits === 1 ? "" : "s"}, about ${formatTokens(plan.runsTokens)} tokens${money(plan.runsCost)}`,
	];
	if (plan.mayChange)
		parts.push(`${plan.mayChange} may change (about ${formatTokens(plan.mayTokens)} tokens${money(plan.mayCost)})`);
	parts.push(
		`${plan.reused} reused (${formatTokens(plan.savedTokens)} tokens${money(plan.savedCost)} not spent again)`,
	);
	return parts.join("; ");
}
