/**
 * Worst-case bounds, known before the first turn because every loop and map has its bound in the file:
 * turns, time, and whether a person's answer is awaited. Bounds are shown, never enforced (budgets are).
 *
 *   agent  (1 + retry) × (1 + handoff continuations) turns, each lasting its timeout
 *   check  its timeout (120s by default); ask: its timeout, or it waits for a person
 *   block  a sequence sums; a choice takes the worst case; a parallel sums turns and takes the longest
 *          time; a map multiplies by its items (time by waves of `concurrency`); a loop by `max`
 *   in flight  a sequence, a choice and a loop take their widest part; a parallel sums its branches; a
 *          map multiplies its body by `concurrency` (at most its items); a swarm has all members at once
 *
 * Each kind's own rule is its module's `bound` and `width` (`kinds/<kind>.ts`); this file sums them.
 */
import type { Flow, FlowNode } from "../ast.ts";
import type { BoundKit, LanguageKinds } from "../kind.ts";

/** One node's (or a flow's) worst case. */
export interface Bound {
	turns: number;
	ms: number;
	/** True when a person's answer may be awaited with no timeout. */
	waits: boolean;
	/**
	 * The most turns that can run at once: how far a token or cost budget can be passed, since a turn is
	 * checked as it starts and counted as it ends (a turn budget is never passed). Filled by
	 * `computeBounds`; read as 1 when absent. A `subagent` tool call inside a turn is not counted here.
	 */
	inFlight?: number;
}

/** A turn's bound when nothing sets one. */
export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;
/** A check's bound when it sets none. */
export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
/** How many times a `partial` finish continues a node, when neither the node nor the flow says. */
export const DEFAULT_CONTINUATIONS = 2;

/** No turn, no time. */
export const ZERO: Bound = { turns: 0, ms: 0, waits: false };

/** Where a timeout came from, for the plan. */
export type TimeoutSource = "node" | "flow" | "default";

/** The bound of one attempt of an agent node, and where it came from. */
export function turnTimeout(node: FlowNode, flow: Flow): { ms: number; source: TimeoutSource } {
	if ((node.kind === "agent" || node.kind === "swarm") && node.timeout)
		return { ms: node.timeout.value, source: "node" };
	if (flow.timeout) return { ms: flow.timeout.value, source: "flow" };
	return { ms: DEFAULT_TURN_TIMEOUT_MS, source: "default" };
}

/** Computes bounds for every node address of a flow (callees' bounds come from `calleeBound`). */
export function computeBounds(
	kinds: LanguageKinds,
	flow: Flow,
	calleeBound: (node: FlowNode) => Bound | undefined,
): { total: Bound; nodes: Map<string, Bound> } {
	const nodes = new Map<string, Bound>();
	const seq = (list: readonly FlowNode[]): Bound => list.map(one).reduce(sum, ZERO);
	const one = (node: FlowNode): Bound => {
		const b = { ...bound(node), inFlight: width(node) };
		nodes.set(node.path, b);
		return b;
	};
	const widest = (list: readonly FlowNode[]): number => Math.max(0, ...list.map(width));
	const kit: BoundKit = { flow, seq, widest, callee: calleeBound };
	const width = (node: FlowNode): number => kinds.of(node).width(node, kit);
	const bound = (node: FlowNode): Bound => kinds.of(node).bound(node, kit);
	return { total: { ...seq(flow.nodes), inFlight: widest(flow.nodes) }, nodes };
}

function sum(a: Bound, b: Bound): Bound {
	return { turns: a.turns + b.turns, ms: a.ms + b.ms, waits: a.waits || b.waits };
}

/** The worse of two cases (a choice takes its worst case). */
export function worst(a: Bound, b: Bound): Bound {
	return { turns: Math.max(a.turns, b.turns), ms: Math.max(a.ms, b.ms), waits: a.waits || b.waits };
}
