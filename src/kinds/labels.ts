/**
 * Words more than one kind prints in the plan: which model and timeout would apply and where they come
 * from, a join's wording. Kept beside the kind modules so each kind's plan row still reads in its module.
 */
import type { AgentDef } from "../agents/index.ts";
import type { FlowNode, Join } from "../language/ast.ts";
import { turnTimeout } from "../language/check/bounds.ts";
import type { NodeContext } from "../language/render/index.ts";
import type { PlanNodeRow } from "../language/render/index.ts";

/** `all`, `any`, `2 of the branches`. */
export function joinText(j: Join): string {
	return j.kind === "quorum" ? `${j.count} of the branches` : j.kind;
}

/** The model that would be asked, nearest first: run, node, flow, agent, pi's settings. */
export function modelOf(
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

/** The bound of one turn as the plan shows it: the run's `--timeout`, else the node's, the flow's, the default. */
export function timeoutOf(node: FlowNode, c: NodeContext): PlanNodeRow["timeout"] {
	if (c.options.timeoutMs !== undefined) return { ms: c.options.timeoutMs, source: "run" };
	const t = turnTimeout(node, c.flow);
	return { ms: t.ms, source: t.source };
}
