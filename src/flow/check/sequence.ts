/**
 * Walks a sequence of nodes in order, each read against what ended before it, and gives back the scope
 * after the sequence and the last node's output type (what a block's entry shows).
 */
import type { FlowNode } from "../ast.ts";
import type { Type } from "../types/index.ts";
import { checkAgent } from "./agent.ts";
import { checkChoice, checkLoop, checkMap, checkParallel } from "./blocks.ts";
import { checkAsk, checkCall, checkCheck, checkCommit, checkSwarm } from "./leaves.ts";
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

function checkNode(w: Walk, node: FlowNode, scope: Scope): Type {
	switch (node.kind) {
		case "agent":
			return checkAgent(w, node, scope);
		case "choice":
			return checkChoice(w, node, scope);
		case "parallel":
			return checkParallel(w, node, scope);
		case "map":
			return checkMap(w, node, scope);
		case "loop":
			return checkLoop(w, node, scope);
		case "check":
			return checkCheck(w, node, scope);
		case "commit":
			return checkCommit(w, node, scope);
		case "ask":
			return checkAsk(w, node, scope);
		case "flow":
			return checkCall(w, node, scope);
		default:
			return checkSwarm(w, node, scope);
	}
}
