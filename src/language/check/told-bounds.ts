/**
 * Bounds the flow states, told to the model that must keep them. A map with `max: 5` over
 * `plan.output.files` fails `too-many` when the planner lists seven; told up front (`maxItems: 5` in the
 * planner's `submit` schema), the model is refused at submit time and corrects itself within its turn.
 *
 *   plan: { output: { files: [string] } }  +  each: { map-from: plan.output.files, max: 5 }
 *   → plan's submit type { files: [string] (at most 5) }
 */
import { allNodes, type Flow } from "../ast.ts";
import { listOf, objectOf, type Type } from "../types/index.ts";

/** Each agent node's `submit` type with the bounds its readers state, by node id (only those that change). */
export function answerTypes(flow: Flow): Map<string, Type> {
	const nodes = allNodes(flow.nodes);
	const byId = new Map(nodes.map((n) => [n.id.value, n]));
	const out = new Map<string, Type>();
	for (const map of nodes) {
		if (map.kind !== "map" || !map.from || !map.max) continue;
		const [first, ...path] = map.from.fields;
		const producer = byId.get(map.from.root);
		if (first !== "output" || producer?.kind !== "agent" || !producer.output) continue;
		const current = out.get(producer.id.value) ?? producer.output.value;
		const bounded = boundAt(current, path, map.max.value);
		if (bounded) out.set(producer.id.value, bounded);
	}
	return out;
}

/** `type` with the list at `path` bounded to `max` items (the tighter bound wins), or undefined. */
function boundAt(type: Type, path: readonly string[], max: number): Type | undefined {
	if (path.length === 0) {
		if (type.kind !== "list") return undefined;
		return {
			...listOf(type.of),
			...(type.description ? { description: type.description } : {}),
			maxItems: Math.min(max, type.maxItems ?? max),
		};
	}
	if (type.kind !== "object") return undefined;
	const [name, ...rest] = path;
	let changed = false;
	const fields = type.fields.map((f) => {
		if (f.name !== name) return f;
		const inner = boundAt(f.type, rest, max);
		if (!inner) return f;
		changed = true;
		return { ...f, type: inner };
	});
	return changed ? { ...objectOf(fields), ...(type.description ? { description: type.description } : {}) } : undefined;
}
