/**
 * Bounds when a run sets one timeout for every turn (`--timeout`): that replaces each agent's bound, which
 * the checked flow could not know, so the plan recomputes the worst case over a copy of the tree whose
 * turns all carry that timeout. Callees are recomputed the same way, since the run's timeout reaches them.
 */
import type { FlowNode } from "../ast.ts";
import { type Bound, type CheckedFlow, computeBounds } from "../check/index.ts";
import type { LanguageKinds } from "../kind.ts";

/** Every node's bound, and the flow's, under an optional run timeout (without one: the checker's own). */
export function boundsUnder(
	flow: CheckedFlow,
	timeoutMs?: number,
): { total: Bound; nodes: ReadonlyMap<string, Bound> } {
	if (timeoutMs === undefined) return { total: flow.bound, nodes: flow.bounds };
	const copy = { ...flow, nodes: flow.nodes.map((n) => withTimeout(flow.kinds, n, timeoutMs)) };
	const callee = (node: FlowNode) => {
		const c = flow.callees.get(node.id.value);
		return c ? boundsUnder(c, timeoutMs).total : undefined;
	};
	return computeBounds(flow.kinds, copy, callee);
}

function withTimeout(kinds: LanguageKinds, node: FlowNode, ms: number): FlowNode {
	return kinds.of(node).timed(node, ms, (list) => list.map((n) => withTimeout(kinds, n, ms)));
}
