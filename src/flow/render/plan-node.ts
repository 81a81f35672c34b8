/**
 * What each kind of node says in the plan: one case per kind, so each kind's line reads in one place. The
 * model and timeout are the ones that would apply, nearest first, with where they come from.
 */
import type { AgentDef } from "../../agents/index.ts";
import type { FlowNode } from "../ast.ts";
import { type CheckedFlow, DEFAULT_CHECK_TIMEOUT_MS, turnTimeout } from "../check/index.ts";
import { typeToString } from "../types/index.ts";
import { blockFacts, plural } from "./phrases.ts";
import type { PlanFlowRow, PlanNodeRow, PlanOptions } from "./plan.ts";

/** What describing a node needs besides the node. */
export interface NodeContext {
	flow: CheckedFlow;
	options: PlanOptions;
	display: (path: string) => string;
}

/** Fills a row with what its kind runs, reads, outputs and is bounded by. */
export function describeNode(node: FlowNode, row: PlanNodeRow, c: NodeContext): void {
	const { flow, options } = c;
	switch (node.kind) {
		case "agent": {
			const agents = node.agent
				? [[node.agent.value, flow.agents.get(node.id.value)] as const]
				: (node.among ?? []).map((a) => [a.value, flow.amongAgents.get(node.id.value)?.get(a.value)] as const);
			const names = agents.map(([name, def]) => (def ? `${name} (${c.display(def.file)})` : name)).join(", ");
			row.what = node.agentFrom ? `agent from ${node.agentFrom.text}: ${names}` : `agent ${names}`;
			row.reads = node.reads.map((r) => r.text);
			const type = flow.types.get(node.id.value);
			if (node.output && type) row.output = typeToString(type);
			row.model = modelOf(
				node.model?.value,
				flow.model?.value,
				options.runModel,
				agents.map(([, def]) => def),
			);
			// One model for the node (not an agent-from list): show what pi resolves it to.
			if (options.resolveModel && agents.length <= 1) {
				const resolved = options.resolveModel(row.model?.ref);
				if (resolved && row.model) row.model.resolved = resolved;
			}
			if (node.thinking) row.thinking = node.thinking.value;
			if (node.tools) row.tools = node.tools.map((t) => t.value);
			if (node.skills) row.settings.push(`skills ${node.skills.map((k) => k.value).join(", ")}`);
			// The agent file's own skills, offered to the subagent (docs/flows.md, Skills).
			const offered = [...new Set(agents.flatMap(([, def]) => (def?.skills ?? []).map((k) => k.name)))];
			if (offered.length) row.settings.push(`agent skills ${offered.join(", ")}`);
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
			row.settings = [
				...blockFacts(node),
				...(node.claimsFrom ? [`claims from ${node.claimsFrom.text}`] : []),
				...(node.until ? [`until ${node.until.text}`] : []),
			];
			return;
		case "check":
			row.what = `check ${node.script?.value ?? ""}`.trim();
			row.timeout = node.timeout
				? { ms: node.timeout.value, source: "node" }
				: { ms: DEFAULT_CHECK_TIMEOUT_MS, source: "default" };
			return;
		case "commit":
			row.what = `commit ${node.message?.text ?? ""}`.trim();
			return;
		case "ask":
			row.what = node.questionFrom
				? `ask from ${node.questionFrom.text}`
				: `ask ${JSON.stringify(node.question?.value ?? "")}`;
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
			row.settings = [
				...blockFacts(node),
				...(node.failFast?.value ? ["fail-fast"] : []),
				...(node.join ? [`join ${joinText(node.join.value)}`] : []),
			];
			return;
		case "map":
			row.what = node.from ? `map over ${node.from.text}` : `map over ${plural(node.items?.length ?? 0, "item")}`;
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

function joinText(j: { kind: "all" } | { kind: "any" } | { kind: "quorum"; count: number }): string {
	return j.kind === "quorum" ? `${j.count} of the branches` : j.kind;
}

/** A flow's budget as plain numbers. */
export function budgetOf(b: NonNullable<CheckedFlow["budget"]>): PlanFlowRow["budget"] {
	return {
		...(b.tokens ? { tokens: b.tokens.value } : {}),
		...(b.cost ? { cost: b.cost.value } : {}),
		...(b.turns ? { turns: b.turns.value } : {}),
	};
}

/** The model that would be asked, nearest first: run, node, flow, agent, pi's settings. */
function modelOf(
	node: string | undefined,
	flow: string | undefined,
	run: string | undefined,
	agents: readonly (AgentDef | undefined)[],
): PlanNodeRow["model"] {
	if (run) return { ref: run, source: "run" };
	if (node) return { ref: node, source: "node" };
	if (flow) return { ref: flow, source: "flow" };
	const models = [...new Set(agents.map((a) => a?.model))];
	// An `agent-from` node whose agents disagree says so; one model (or none) reads like a literal agent.
	if (models.length > 1)
		return { ref: agents.map((a) => `${a?.name}: ${a?.model ?? "pi settings"}`).join(", "), source: "agent" };
	return models[0] ? { ref: models[0], source: "agent" } : { source: "settings" };
}

function timeoutOf(node: FlowNode, c: NodeContext): PlanNodeRow["timeout"] {
	if (c.options.timeoutMs !== undefined) return { ms: c.options.timeoutMs, source: "run" };
	const t = turnTimeout(node, c.flow);
	return { ms: t.ms, source: t.source };
}
