// The long form, `{ json-schema: {...} }`: the JSON Schema subset it reads, and every refusal at once,
// each with its path inside the schema and the YAML node it points at.
import { describe, expect, it } from "vitest";
import {
	BOOLEAN,
	enumOf,
	field,
	listOf,
	NUMBER,
	objectOf,
	STRING,
	type Type,
} from "../../../src/language/types/index.ts";
import { readType } from "./helpers.ts";

const js = (schema: string) => `{ json-schema: ${schema} }`;

describe("json-schema accepts", () => {
	it.each<[string, Type]>([
		["{ type: string }", STRING],
		["{ type: number }", NUMBER],
		["{ type: boolean, description: Whether it passed }", { ...BOOLEAN, description: "Whether it passed" }],
		["{ type: string, enum: [scout, reviewer] }", enumOf(["scout", "reviewer"])],
		["{ type: array, items: { type: string } }", listOf(STRING)],
		[
			"{ type: object, properties: { task: { type: string }, note: { type: string } }, required: [task] }",
			objectOf([field("task", STRING), field("note", STRING, true)]),
		],
		[
			"{ type: object, properties: { tasks: { type: array, items: { type: object, properties: { n: { type: number } }, required: [n] } } }, required: [tasks] }",
			objectOf([field("tasks", listOf(objectOf([field("n", NUMBER)])))]),
		],
	])("%s", (schema, type) => {
		const { value, faults } = readType(js(schema));
		expect(faults).toEqual([]);
		expect(value).toEqual(type);
	});
});

describe("json-schema refuses", () => {
	it.each<[string, { path: string; source: string }[]]>([
		["{ type: integer }", [{ path: "plan.output.json-schema.type", source: "integer" }]],
		["{ type: strng }", [{ path: "plan.output.json-schema.type", source: "strng" }]],
		["{ description: x }", [{ path: "plan.output.json-schema", source: "{ description: x }" }]],
		["{ type: string, format: email }", [{ path: "plan.output.json-schema.format", source: "format" }]],
		["{ type: string, enum: [a] }", [{ path: "plan.output.json-schema.enum", source: "[a]" }]],
		[
			'{ type: string, enum: [a, a, ""] }',
			[
				{ path: "plan.output.json-schema.enum", source: "a" },
				{ path: "plan.output.json-schema.enum", source: '""' },
			],
		],
		["{ type: number, enum: [1, 2] }", [{ path: "plan.output.json-schema.enum", source: "enum" }]],
		["{ type: array }", [{ path: "plan.output.json-schema", source: "{ type: array }" }]],
		["{ type: string, items: { type: string } }", [{ path: "plan.output.json-schema.items", source: "items" }]],
		["{ type: object }", [{ path: "plan.output.json-schema", source: "{ type: object }" }]],
		["{ type: object, properties: {} }", [{ path: "plan.output.json-schema", source: "{}" }]],
		[
			"{ type: object, properties: { a: { type: string } }, required: [b, a, a] }",
			[
				{ path: "plan.output.json-schema.required", source: "b" },
				{ path: "plan.output.json-schema.required", source: "a" },
			],
		],
		[
			"{ type: object, properties: { first-task: { type: string }, b: { type: nul } }, additionalProperties: false }",
			[
				{ path: "plan.output.json-schema.additionalProperties", source: "additionalProperties" },
				{ path: "plan.output.json-schema.properties.first-task", source: "first-task" },
				{ path: "plan.output.json-schema.properties.b.type", source: "nul" },
			],
		],
		["{ type: array, items: string }", [{ path: "plan.output.json-schema.items", source: "string" }]],
	])("%s", (schema, expected) => {
		const { value, refused } = readType(js(schema));
		expect(value).toBeUndefined();
		expect(refused.map(({ path, source }) => ({ path, source }))).toEqual(expected);
	});

	it("must stand alone", () => {
		const { refused } = readType("{ json-schema: { type: string }, note: string }");
		expect(refused.map(({ path, source }) => ({ path, source }))).toEqual([
			{ path: "plan.output.note", source: "note" },
		]);
	});

	it("suggests the keyword meant, and does not also call it missing", () => {
		expect(readType(js("{ type: object, propertes: { a: { type: string } } }")).faults.map((f) => f.expected)).toEqual([
			["properties"],
		]);
		expect(readType(js("{ typ: string }")).faults.map((f) => f.expected)).toEqual([["type"]]);
	});
});
