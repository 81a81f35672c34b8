/**
 * Walks a sequence of nodes in order, each read against what ended before it, and gives back the scope
 * after the sequence and the last node's output type (what a block's entry shows).
 */
import type { FlowNode } from "../ast.ts";
import type { Type } from "../types/index.ts";
import type { Scope } from "./scope.ts";
import type { Walk } from "./walk.ts";

/** What a checked sequence leaves: the scope after it and its last node's type. */
export interface SequenceOut {
	scope: Scope;
	last?: Type;
	/** Output types by id of the nodes directly in the sequence. */
	types: Map<string, Type>;
}

/** Checks the nodes of one sequence. */
export function checkSequence(w: Walk, nodes: readonly FlowNode[], scope: Scope): SequenceOut {
	let here = scope;
	let last: Type | undefined;
	const types = new Map<string, Type>();
	for (const node of nodes) {
		if (!w.silent) w.points.before.set(node.id.value, here);
		const type = checkNode(w, node, here);
		w.types.set(node.id.value, type);
		types.set(node.id.value, type);
		last = type;
		here = here.with({
			id: node.id.value,
			type,
			handoff: node.kind === "agent",
			ledger: (node.kind === "loop" || node.kind === "map") && !!node.ledger,
		});
		if (!w.silent) w.points.after.set(node.id.value, here);
	}
	return { scope: here, types, ...(last ? { last } : {}) };
}

/** Each kind checks itself: its module's `check` (`kinds/<kind>.ts`), which checks a block's body through here. */
function checkNode(w: Walk, node: FlowNode, scope: Scope): Type {
	return w.kinds.of(node).check(w, node, scope);
}
