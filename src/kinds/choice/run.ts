/**
 * A choice at run time: the first case whose condition holds runs its body (else `default`); a condition
 * that cannot be evaluated fails the node `condition`.
 */
import type { ChoiceNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { body, scope } from "../../engine/blocks.ts";
import { evaluate } from "../../engine/evaluate.ts";
import { childFrame, type Frame, lookupIn } from "../../engine/frames.ts";
import type { VisitEnd } from "../../engine/kind.ts";
import { childFailure } from "../../engine/walk.ts";
import type { World } from "../../engine/world.ts";

/** A choice: the first case that holds runs; a condition that cannot be evaluated fails the node `condition`. */
export async function runChoice(
	world: World,
	node: ChoiceNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const lookup = lookupIn(frame, world);
	let chosen: { name: string; nodes: ChoiceNode["otherwise"] } | undefined;
	for (const [i, c] of node.cases.entries()) {
		const v = evaluate(c.when.expr, lookup);
		if (!v.ok)
			return {
				record: { ok: false, error: { kind: "condition", message: `case ${c.name?.value ?? i + 1}: ${v.reason}` } },
			};
		if (v.value === true) {
			chosen = { name: c.name?.value ?? String(i + 1), nodes: c.body };
			break;
		}
	}
	chosen ??= { name: "default", nodes: node.otherwise };
	if (chosen.nodes.length === 0) return { record: { ok: true, output: { case: chosen.name } } };
	const inner = childFrame(frame, visit, { id: node.id.value, kind: "choice", memory: scope(node.id.value, visit) });
	const end = await body(world, chosen.nodes, inner, signal);
	if (!end.ok) return { record: childFailure(end, visit), ...(end.failedAt ? { failedAt: end.failedAt } : {}) };
	const output: Record<string, Value> = { case: chosen.name };
	if (end.last?.output !== undefined) output.output = end.last.output;
	return { record: { ok: true, output } };
}
