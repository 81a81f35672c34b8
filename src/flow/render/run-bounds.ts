/**
 * Bounds when a run sets one timeout for every turn (`--timeout`): that replaces each agent's bound, which
 * the checked flow could not know, so the plan recomputes the worst case over a copy of the tree whose
 * turns all carry that timeout. Callees are recomputed the same way, since the run's timeout reaches them.
 */
import type { FlowNode } from "../ast.ts";
import { type Bound, type CheckedFlow, computeBounds } from "../check/index.ts";

/** Every node's bound, and the flow's, under an optional run timeout (without one: the checker's own). */
export function boundsUnder(
	flow: CheckedFlow,
	timeoutMs?: number,
): { total: Bound; nodes: ReadonlyMap<string, Bound> } {
	if (timeoutMs === undefined) return { total: flow.bound, nodes: flow.bounds };
	const copy = { ...flow, nodes: flow.nodes.map((n) => withTimeout(n, timeoutMs)) };
	const callee = (node: FlowNode) => {
		const c = flow.callees.get(node.id.value);
		return c ? boundsUnder(c, timeoutMs).total : undefined;
	};
	return computeBounds(copy, callee);
}

function withTimeout(node: FlowNode, ms: number): FlowNode {
	const at = { value: ms, range: node.range };
	const seq = (list: readonly FlowNode[]) => list.map((n) => withTimeout(n, ms));
	switch (node.kind) {
		case "agent":
		case "swarm":
			return { ...node, timeout: at };
		case "choice":
			return { ...node, cases: node.cases.map((c) => ({ ...c, body: seq(c.body) })), otherwise: seq(node.otherwise) };
		case "parallel":
			return { ...node, branches: node.branches.map((b) => ({ ...b, body: seq(b.body) })) };
		case "map":
		case "loop":
			return { ...node, body: seq(node.body) };
		default:
			return node;
	}
}
