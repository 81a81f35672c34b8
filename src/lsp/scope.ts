/**
 * Which of the checker's scopes an editor position reads. The checker keeps the scope before and after
 * each node and where each block's body starts and ends (`ScopePoints`); what is visible there, and what an
 * address binds, is the checker's own answer (`Scope.readable`, `Scope.resolveNames`). The points are kept
 * from the last text that built, so they still answer while the text in the editor is half-written.
 *
 *   input:  cursor in `reads:` of node `work`, points of `plan → work`
 *   output: the scope before `work`: input, diff, plan (plan.output.tasks: [string])
 */
import type { Scope, ScopePoints } from "../language/index.ts";
import type { Cursor } from "./cursor.ts";

/**
 * What the cursor's key reads: a loop's `loop:`/`give-up:` and `carry.next` see its finished body, a
 * swarm's `until:` sees the swarm, a case's `when:` what ran before the choice, anything else what ran
 * before the node. A node not in the last build (no id yet, or a new one) reads what its predecessor in
 * the same list could, then what its block's body starts with.
 */
export function hereAt(points: ScopePoints, cursor: Cursor): Scope {
	const own = cursor.nodes[cursor.nodes.length - 1];
	const parent = cursor.nodes[cursor.nodes.length - 2];
	const id = own?.id;
	if (id !== undefined && points.before.has(id)) {
		const key = cursor.key;
		const end = points.bodyEnd.get(id);
		if (end && cursor.role === "node" && (key === "loop" || key === "give-up")) return end;
		if (end && cursor.role === "carry" && key === "next") return end;
		if (cursor.role === "node" && key === "until") return points.after.get(id) ?? points.root;
		return points.before.get(id) ?? points.root;
	}
	if (own?.prevId !== undefined && points.after.has(own.prevId)) return points.after.get(own.prevId) ?? points.root;
	if (parent?.id !== undefined && points.bodyStart.has(parent.id))
		return points.bodyStart.get(parent.id) ?? points.root;
	return points.root;
}

/** The id of the node an address's binding names, where go-to-definition lands (`input`, `diff`: none). */
export function boundId(scope: Scope, address: string): string | undefined {
	const names = address.split(".");
	// The longest prefix that reads here: a typo in a field still finds the node the address starts from.
	for (let n = names.length; n > 0; n--) {
		const binding = scope.resolveNames(names.slice(0, n))?.binding;
		if (!binding) continue;
		if (binding.kind === "node" || binding.kind === "block") return binding.id;
		if (binding.kind === "item") return binding.map;
		return undefined;
	}
	return undefined;
}
