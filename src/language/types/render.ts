/**
 * Two readings of a type: the short notation people write (for `plan`, messages and docs), and JSON Schema
 * (for the `submit` tool, whose parameters a model fills in).
 */
import { type Field, QUESTION, sameType, type Type } from "./type.ts";

/**
 * The short notation of `t`, as a flow file would write it: `{ tasks: [{ worker: scout | reviewer }] }`.
 * `Question` prints by name; `text` and the free string of an `ask-from` answer, which no file writes,
 * print as `text` and `free string`.
 */
export function typeToString(t: Type): string {
	switch (t.kind) {
		case "string":
		case "number":
		case "boolean":
		case "text":
			return t.kind;
		case "freeString":
			return "free string";
		case "enum":
			return t.values.join(" | ");
		case "list":
			return `[${typeToString(t.of)}]${t.maxItems === undefined ? "" : ` (at most ${t.maxItems})`}`;
		case "object":
			if (sameType(t, QUESTION)) return "Question";
			return `{ ${t.fields.map(fieldToString).join(", ")} }`;
	}
}

function fieldToString(f: Field): string {
	return `${f.name}${f.optional ? "?" : ""}: ${typeToString(f.type)}`;
}

/**
 * The JSON Schema subset `typeToJsonSchema` produces, the same keywords the long form reads back. A type
 * alias rather than an interface, so it is assignable to `Record<string, unknown>` where a tool API wants one.
 */
export type JsonSchema = {
	type: "string" | "number" | "boolean" | "array" | "object";
	description?: string;
	enum?: string[];
	items?: JsonSchema;
	/** A bound the flow states (a map's `max:` over this list), told to the model. */
	maxItems?: number;
	properties?: Record<string, JsonSchema>;
	required?: string[];
	/** Always false on objects: a model's extra field is refused, as `matches` refuses it. */
	additionalProperties?: false;
};

/** `t` as JSON Schema, for the `submit` tool; text and free strings are plain strings to a model. */
export function typeToJsonSchema(t: Type): JsonSchema {
	const described = (s: JsonSchema): JsonSchema =>
		t.description === undefined ? s : { ...s, description: t.description };
	switch (t.kind) {
		case "string":
		case "text":
		case "freeString":
			return described({ type: "string" });
		case "number":
			return described({ type: "number" });
		case "boolean":
			return described({ type: "boolean" });
		case "enum":
			return described({ type: "string", enum: [...t.values] });
		case "list":
			return described({
				type: "array",
				items: typeToJsonSchema(t.of),
				...(t.maxItems === undefined ? {} : { maxItems: t.maxItems }),
			});
		case "object": {
			const properties: Record<string, JsonSchema> = {};
			for (const f of t.fields) properties[f.name] = typeToJsonSchema(f.type);
			const required = t.fields.filter((f) => !f.optional).map((f) => f.name);
			return described({ type: "object", properties, required, additionalProperties: false });
		}
	}
}
