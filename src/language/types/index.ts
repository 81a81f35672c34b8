/**
 * The type layer's only door: the type model, the `output:`/`input:` notation (short and json-schema
 * forms), and what the rest of the product does with a type (print it, hand it to a model, check a value
 * against it, carry it through a loop, make one up for a dry run).
 */
export { intersect } from "./carry.ts";
export { type Match, matches } from "./matches.ts";
export { type JsonSchema, typeToJsonSchema, typeToString } from "./render.ts";
export { sampleValue } from "./sample.ts";
export { type ParsedType, parseTypeShorthand } from "./shorthand.ts";
export {
	BOOLEAN,
	type BooleanType,
	type EnumType,
	enumOf,
	FREE_STRING,
	type Field,
	type FreeStringType,
	field,
	type ListType,
	listOf,
	NUMBER,
	type NumberType,
	type ObjectType,
	objectOf,
	QUESTION,
	STRING,
	type StringType,
	sameType,
	TEXT,
	type TextType,
	type Type,
	type Value,
} from "./type.ts";
export type { TypeAt } from "./type-at.ts";
