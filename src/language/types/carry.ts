/**
 * The type a loop carries. `carry: { first, next }` reads `first` on the first iteration and `next` after
 * each one, so a reader may only rely on what both sides give: in the shipped build flow, `first` is
 * `[{ text }]` and `next` is `[{ id, text }]`, so `deliver.carry` is `[{ text }]`.
 */
import { type Field, listOf, objectOf, sameType, type Type } from "./type.ts";

/**
 * What `a` and `b` have in common: the same type if they are the same; through lists, the common element;
 * through objects, the fields both have whose types are equal (or, for lists and objects, that have a
 * common part themselves). A field optional on either side is optional. Undefined when nothing is shared,
 * which the checker reports as `carry-mismatch`.
 */
export function intersect(a: Type, b: Type): Type | undefined {
	if (sameType(a, b)) return a;
	if (a.kind === "list" && b.kind === "list") {
		const of = intersect(a.of, b.of);
		return of ? listOf(of) : undefined;
	}
	if (a.kind === "object" && b.kind === "object") {
		const fields: Field[] = [];
		for (const fa of a.fields) {
			const fb = b.fields.find((f) => f.name === fa.name);
			if (!fb) continue;
			const type = nested(fa.type, fb.type);
			if (type) fields.push({ name: fa.name, type, optional: fa.optional || fb.optional });
		}
		return fields.length ? objectOf(fields) : undefined;
	}
	return undefined;
}

/** Inside an object, scalars must be equal; only lists and objects narrow further. */
function nested(a: Type, b: Type): Type | undefined {
	if (sameType(a, b)) return a;
	const structured = (t: Type) => t.kind === "list" || t.kind === "object";
	return structured(a) && structured(b) ? intersect(a, b) : undefined;
}
