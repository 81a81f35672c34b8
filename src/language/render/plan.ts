/**
 * The plan: a checked flow as rows of data, one per node in file order, nested under their blocks, each
 * with what it runs, what it reads, its type, its model and timeout and where they come from, and its worst
 * case. Pure: the written model reference is shown, never resolved, so a plan needs no pi and no network.
 *
 *   input:  the checked `explore` (look: scout reads input; answer: synthesiser reads input, look)
 *   output: [flow explore · input string · ≤ 6 turns, node look · agent scout · reads input · ..., node answer ...]
 *   shown:  `showPlan(rows)` prints one line per row (see show-plan.ts)
 */
import type { FlowNode, NodeKind } from "../ast.ts";
import type { Bound, CheckedFlow, TimeoutSource } from "../check/index.ts";
import { typeToString } from "../types/index.ts";
import { budgetOf, describeNode } from "./plan-node.ts";
import { boundsUnder } from "./run-bounds.ts";

/** Where a node's model comes from; `settings` is pi's own when nothing in the flow or agent names one. */
export type PlanModelSource = "run" | "node" | "flow" | "agent" | "settings";

/** Where a timeout comes from; `run` is a launch-wide `--timeout`, which replaces every turn's. */
export type PlanTimeoutSource = "run" | TimeoutSource;

/** The flow itself: the plan's first row. */
export interface PlanFlowRow {
	row: "flow";
	depth: 0;
	name: string;
	/** The flow's file as the reader should see it (relative where it can be). */
	file: string;
	input: string;
	budget?: { tokens?: number; cost?: number; turns?: number };
	bound: Bound;
}

/** A heading inside a block: a choice's case (with its condition) or default, or a parallel's branch. */
export interface PlanGroupRow {
	row: "group";
	depth: number;
	label: string;
}

/** One node. */
export interface PlanNodeRow {
	row: "node";
	depth: number;
	id: string;
	path: string;
	kind: NodeKind;
	/** What it runs, in words: `agent scout (agents/scout.md)`, `loop until tests.output.passed`. */
	what: string;
	reads: string[];
	output?: string;
	/** Absent for nodes that run no model. `ref` is absent when pi's settings decide. */
	model?: { ref?: string; source: PlanModelSource; resolved?: string };
	thinking?: string;
	tools?: string[];
	timeout?: { ms: number; source: PlanTimeoutSource };
	retry?: number;
	memory?: string;
	verdict?: string;
	/** Block and kind settings as phrases: `max 2`, `concurrency 2`, `give-up …`, `carry …`. */
	settings: string[];
	onFail: boolean;
	bound: Bound;
}

/** A row of the plan. */
export type PlanRow = PlanFlowRow | PlanGroupRow | PlanNodeRow;

/** What a plan needs besides the flow. */
export interface PlanOptions {
	/** The flow's file as it should be shown. */
	file: string;
	/** Shows other files (agents, callees) as the reader should see them. Default: unchanged. */
	display?: (path: string) => string;
	/** The run's `--model`, which wins over everything the flow and agents say. Default: none. */
	runModel?: string;
	/** The run's `--timeout` in ms, which replaces every turn's bound. Default: none. */
	timeoutMs?: number;
	/**
	 * pi's own resolver, given by a caller that has pi (the CLI): the `provider/id` a written name such as
	 * `sonnet` resolves to (pi's settings when undefined), or undefined when pi cannot resolve it. Default:
	 * none, and the plan shows names as written.
	 */
	resolveModel?: (ref: string | undefined) => string | undefined;
	/** The budget in force (the flow's, its chain's, the launch's flags). Default: the flow's own `budget:`. */
	budget?: { tokens?: number; cost?: number; turns?: number };
}

/** The plan of a checked flow as data, first row the flow, then every node depth first. */
export function planOf(flow: CheckedFlow, options: PlanOptions): PlanRow[] {
	const display = options.display ?? ((p: string) => p);
	const bounds = boundsUnder(flow, options.timeoutMs);
	const rows: PlanRow[] = [
		{
			row: "flow",
			depth: 0,
			name: flow.name.value,
			file: options.file,
			input: typeToString(flow.input.value),
			...(options.budget ? { budget: options.budget } : flow.budget ? { budget: budgetOf(flow.budget) } : {}),
			bound: bounds.total,
		},
	];
	const seq = (nodes: readonly FlowNode[], depth: number) => {
		for (const node of nodes) {
			const row: PlanNodeRow = {
				row: "node",
				depth,
				id: node.id.value,
				path: node.path,
				kind: node.kind,
				what: node.kind,
				reads: [],
				settings: [],
				onFail: !!node.onFail,
				bound: bounds.nodes.get(node.path) ?? { turns: 0, ms: 0, waits: false },
			};
			describeNode(node, row, { flow, options, display });
			rows.push(row);
			children(node, depth);
		}
	};
	const group = (label: string, body: readonly FlowNode[], depth: number) => {
		rows.push({ row: "group", depth, label: body.length ? label : `${label} · nothing` });
		seq(body, depth + 1);
	};
	const children = (node: FlowNode, depth: number) => {
		for (const { label, body } of flow.kinds.of(node).bodies(node)) {
			if (label === undefined) seq(body, depth + 1);
			else group(label, body, depth + 1);
		}
	};
	seq(flow.nodes, 1);
	return rows;
}
