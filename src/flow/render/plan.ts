/**
 * The plan: a checked flow as rows of data, one per node in file order, nested under their blocks, each
 * with what it runs, what it reads, its type, its model and timeout and where they come from, and its worst
 * case. Pure: the written model reference is shown, never resolved, so a plan needs no pi and no network.
 *
 *   input:  the checked `explore` (look: scout reads input; answer: synthesiser reads input, look)
 *   output: [flow explore · input string · ≤ 6 turns, node look · agent scout · reads input · ..., node answer ...]
 *   shown:  `showPlan(rows)` prints one line per row (see show-plan.ts)
 */
import type { AgentDef } from "../../agents/index.ts";
import type { FlowNode, NodeKind } from "../ast.ts";
import { type Bound, type CheckedFlow, DEFAULT_CHECK_TIMEOUT_MS, type TimeoutSource, turnTimeout } from "../check/index.ts";
import { typeToString } from "../types/index.ts";
import { blockFacts } from "./phrases.ts";
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
	model?: { ref?: string; source: PlanModelSource };
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
			...(flow.budget ? { budget: budgetOf(flow.budget) } : {}),
			bound: bounds.total,
		},
	];
	const agentText = (a: AgentDef | undefined, name: string) => (a ? `${name} (${display(a.file)})` : name);
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
			describe(node, row, { flow, options, display, agentText });
			rows.push(row);
			children(node, depth);
		}
	};
	const group = (label: string, body: readonly FlowNode[], depth: number) => {
		rows.push({ row: "group", depth, label: body.length ? label : `${label} · nothing` });
		seq(body, depth + 1);
	};
	const children = (node: FlowNode, depth: number) => {
		if (node.kind === "choice") {
			node.cases.forEach((c, i) => group(`case ${c.name?.value ?? i + 1} · when ${c.when.text}`, c.body, depth + 1));
			group("default", node.otherwise, depth + 1);
		} else if (node.kind === "parallel") {
			for (const b of node.branches) group(`branch ${b.name.value}`, b.body, depth + 1);
		} else if (node.kind === "map" || node.kind === "loop") seq(node.body, depth + 1);
	};
	seq(flow.nodes, 1);
	return rows;
}

interface Context {
	flow: CheckedFlow;
	options: PlanOptions;
	display: (path: string) => string;
	agentText: (a: AgentDef | undefined, name: string) => string;
}

/** Fills a row with what its kind says; one case per kind, so each kind's line reads in one place. */
function describe(node: FlowNode, row: PlanNodeRow, c: Context): void {
	const { flow, options } = c;
	switch (node.kind) {
		case "agent": {
			const agents = node.agent
				? [[node.agent.value, flow.agents.get(node.id.value)] as const]
				: (node.among ?? []).map((a) => [a.value, flow.amongAgents.get(node.id.value)?.get(a.value)] as const);
			const names = agents.map(([name, def]) => c.agentText(def, name)).join(", ");
			row.what = node.agentFrom ? `agent from ${node.agentFrom.text}: ${names}` : `agent ${names}`;
			row.reads = node.reads.map((r) => r.text);
			const type = flow.types.get(node.id.value);
			if (node.output && type) row.output = typeToString(type);
			row.model = modelOf(node.model?.value, flow.model?.value, options.runModel, agents.map(([, def]) => def));
			if (node.thinking) row.thinking = node.thinking.value;
			if (node.tools) row.tools = node.tools.map((t) => t.value);
			row.timeout = timeoutOf(node, c);
			if (node.retry) row.retry = node.retry.value;
			if (node.memory) row.memory = node.memory.value;
			if (node.verdict) row.verdict = node.verdict.value;
			return;
		}
		case "swarm":
			row.what = `swarm ${node.members.map((m) => (m.count > 1 ? `${m.agent.value} ×${m.count}` : m.agent.value)).join(", ")}`;
			row.reads = node.reads.map((r) => r.text);
			row.timeout = timeoutOf(node, c);
			row.settings = [...blockFacts(node), ...(node.claimsFrom ? [`claims from ${node.claimsFrom.text}`] : []), ...(node.until ? [`until ${node.until.text}`] : [])];
			return;
		case "check":
			row.what = `check ${node.script?.value ?? ""}`.trim();
			row.timeout = node.timeout ? { ms: node.timeout.value, source: "node" } : { ms: DEFAULT_CHECK_TIMEOUT_MS, source: "default" };
			return;
		case "commit":
			row.what = `commit ${node.message?.text ?? ""}`.trim();
			return;
		case "ask":
			row.what = node.questionFrom ? `ask from ${node.questionFrom.text}` : `ask ${JSON.stringify(node.question?.value ?? "")}`;
			row.reads = node.reads.map((r) => r.text);
			row.output = typeToString(flow.types.get(node.id.value) ?? { kind: "string" });
			if (node.timeout) row.timeout = { ms: node.timeout.value, source: "node" };
			row.settings = [
				...(node.confirm ? ["yes or no"] : []),
				...(node.options ? [`options ${node.options.map((o) => o.label.value).join(", ")}`] : []),
				...(node.enough ? [`enough ${JSON.stringify(node.enough.value)}`] : []),
				...(node.fallback ? [`default ${JSON.stringify(node.fallback.value)}`] : []),
			];
			return;
		case "flow": {
			const callee = flow.callees.get(node.id.value);
			row.what = `flow ${node.callee?.value ?? ""}${callee ? ` (${c.display(callee.file)})` : ""}`;
			if (node.input) row.settings = [`input ${node.input.text}`];
			const type = flow.types.get(node.id.value);
			if (type && type.kind !== "text") row.output = typeToString(type);
			return;
		}
		case "choice":
			row.what = "choice";
			return;
		case "parallel":
			row.what = "parallel";
			row.settings = [...blockFacts(node), ...(node.failFast?.value ? ["fail-fast"] : []), ...(node.join ? [`join ${joinText(node.join.value)}`] : [])];
			return;
		case "map":
			row.what = node.from ? `map over ${node.from.text}` : `map over ${plural(node.items?.length ?? 0)}`;
			row.settings = [
				...blockFacts(node),
				...(node.failFast?.value ? ["fail-fast"] : []),
				...(node.join ? [`join ${joinText(node.join.value)}`] : []),
				...(node.ledger ? ["ledger"] : []),
			];
			return;
		case "loop":
			row.what = `loop until ${node.until?.text ?? "?"}`;
			row.settings = [
				...blockFacts(node),
				...(node.giveUp ? [`give-up ${node.giveUp.text}`] : []),
				...(node.carry ? [`carry ${node.carry.first.text} then ${node.carry.next.text}`] : []),
				...(node.ledger ? ["ledger"] : []),
			];
			return;
	}
}

function plural(n: number): string {
	return `${n} item${n === 1 ? "" : "s"}`;
}

function joinText(j: { kind: "all" } | { kind: "any" } | { kind: "quorum"; count: number }): string {
	return j.kind === "quorum" ? `${j.count} of the branches` : j.kind;
}

function budgetOf(b: NonNullable<CheckedFlow["budget"]>): PlanFlowRow["budget"] {
	return { ...(b.tokens ? { tokens: b.tokens.value } : {}), ...(b.cost ? { cost: b.cost.value } : {}), ...(b.turns ? { turns: b.turns.value } : {}) };
}

/** The model that would be asked, nearest first: run, node, flow, agent, pi's settings. */
function modelOf(node: string | undefined, flow: string | undefined, run: string | undefined, agents: readonly (AgentDef | undefined)[]): PlanNodeRow["model"] {
	if (run) return { ref: run, source: "run" };
	if (node) return { ref: node, source: "node" };
	if (flow) return { ref: flow, source: "flow" };
	const models = [...new Set(agents.map((a) => a?.model))];
	// An `agent-from` node whose agents disagree says so; one model (or none) reads like a literal agent.
	if (models.length > 1) return { ref: agents.map((a) => `${a?.name}: ${a?.model ?? "pi settings"}`).join(", "), source: "agent" };
	return models[0] ? { ref: models[0], source: "agent" } : { source: "settings" };
}

function timeoutOf(node: FlowNode, c: Context): PlanNodeRow["timeout"] {
	if (c.options.timeoutMs !== undefined) return { ms: c.options.timeoutMs, source: "run" };
	const t = turnTimeout(node, c.flow);
	return { ms: t.ms, source: t.source };
}
