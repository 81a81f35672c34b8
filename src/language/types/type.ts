/**
 * The type model of flow values: what an `output:` or `input:` declares, what a condition reads, what
 * `submit` accepts. Closed on purpose: no `any` and no `null`, so every value a condition reads has a shape
 * the checker knows before the first spawn. A value whose shape cannot be named is an agent's `text`.
 */

/** Fields every type may carry; `description` is passed to the model and never affects matching. */
interface TypeBase {
	/** From a json-schema `description`; absent in the short form. */
	description?: string;
}

/** Any string. */
export interface StringType extends TypeBase {
	kind: "string";
}

/** A JSON number: integers and decimals are one type, as in JSON and our evaluator. */
export interface NumberType extends TypeBase {
	kind: "number";
}

/** `true` or `false`. */
export interface BooleanType extends TypeBase {
	kind: "boolean";
}

/**
 * One of a closed set of strings (`scout | reviewer`). Conditions hold literals to the set
 * (`condition-enum-value`), which is why models answer decisions as enums rather than prose.
 */
export interface EnumType extends TypeBase {
	kind: "enum";
	/** At least two, none empty, none repeated, in the order written. */
	values: readonly string[];
}

/** `[T]`: a list of one element type. */
export interface ListType extends TypeBase {
	kind: "list";
	of: Type;
	/**
	 * The most items a value may hold. Never written by hand: the checker adds it to a producer's `submit`
	 * type when a map reads the list with `max:`, so the model is refused at submit time and can correct
	 * itself, instead of the map failing `too-many` after the turn. Absent: no bound.
	 */
	maxItems?: number;
}

/** One field of an object type. */
export interface Field {
	/** A CEL identifier, so conditions can read it. */
	name: string;
	type: Type;
	/** `b?: number`: the value may leave it out; reading it then is an error at run time, never false. */
	optional: boolean;
}

/** `{ a: string, b?: number }`: at least one field, in the order written. */
export interface ObjectType extends TypeBase {
	kind: "object";
	fields: readonly Field[];
}

/** An agent's untyped output: readable whole by a later turn, never into, and never by a condition. */
export interface TextType extends TypeBase {
	kind: "text";
}

/**
 * An `ask-from` answer: a string in the person's own words (or a model's label in their language), so a
 * condition may not compare it with a literal (`condition-free-string`).
 */
export interface FreeStringType extends TypeBase {
	kind: "freeString";
}

/** Every type a flow value can have. */
export type Type = StringType | NumberType | BooleanType | EnumType | ListType | ObjectType | TextType | FreeStringType;

/** A JSON value as flows pass them around: no null, no undefined inside (an absent optional field is absent). */
export type Value = string | number | boolean | Value[] | { [field: string]: Value };

/** The scalar types, shared so comparisons by identity stay cheap. */
export const STRING: StringType = { kind: "string" };
export const NUMBER: NumberType = { kind: "number" };
export const BOOLEAN: BooleanType = { kind: "boolean" };
export const TEXT: TextType = { kind: "text" };
export const FREE_STRING: FreeStringType = { kind: "freeString" };

/** An enum of `values`. */
export function enumOf(values: readonly string[]): EnumType {
	return { kind: "enum", values };
}

/** A list of `of`. */
export function listOf(of: Type): ListType {
	return { kind: "list", of };
}

/** An object of `fields`. */
export function objectOf(fields: readonly Field[]): ObjectType {
	return { kind: "object", fields };
}

/** A field; `optional` defaults to false because most fields a flow reads must be there. */
export function field(name: string, type: Type, optional = false): Field {
	return { name, type, optional };
}

/**
 * What `ask-from` reads: `{ header?: string, question: string, options: [{ label: string, description?: string }] }`,
 * the shape of pi's question card, so a model can hand a person a question to answer.
 */
export const QUESTION: ObjectType = objectOf([
	field("header", STRING, true),
	field("question", STRING),
	field("options", listOf(objectOf([field("label", STRING), field("description", STRING, true)]))),
]);

/**
 * Structural equality, ignoring descriptions and the order of enum values and fields: `a | b` is `b | a`.
 * Used for carry, memory sharing and call inputs, where "the same type" means "the same values fit".
 */
export function sameType(a: Type, b: Type): boolean {
	if (a.kind !== b.kind) return false;
	if (a.kind === "enum" && b.kind === "enum") {
		const values = new Set(a.values);
		return values.size === new Set(b.values).size && b.values.every((v) => values.has(v));
	}
	if (a.kind === "list" && b.kind === "list") return sameType(a.of, b.of);
	if (a.kind === "object" && b.kind === "object") {
		if (a.fields.length !== b.fields.length) return false;
		return a.fields.every((fa) => {
			const fb = b.fields.find((f) => f.name === fa.name);
			return fb !== undefined && fb.optional === fa.optional && sameType(fa.type, fb.type);
		});
	}
	return true;
}
