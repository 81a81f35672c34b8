// The short type notation: what it accepts, and each refusal with its path inside the schema and the exact
// YAML range it points at.
import { describe, expect, it } from "vitest";
import {
	BOOLEAN,
	enumOf,
	field,
	listOf,
	NUMBER,
	objectOf,
	QUESTION,
	STRING,
	type Type,
} from "../../../src/language/types/index.ts";
import { readType, VALUE_COLUMN } from "./helpers.ts";

describe("short form accepts", () => {
	it.each<[string, Type]>([
		["string", STRING],
		["number", NUMBER],
		["boolean", BOOLEAN],
		["Question", QUESTION],
		["scout | reviewer", enumOf(["scout", "reviewer"])],
		["Build it | Change the plan | Stop", enumOf(["Build it", "Change the plan", "Stop"])],
		['"a | b"', enumOf(["a", "b"])],
		["[string]", listOf(STRING)],
		["[[number]]", listOf(listOf(NUMBER))],
		["{ task: string }", objectOf([field("task", STRING)])],
		["{ task: string, note?: string }", objectOf([field("task", STRING), field("note", STRING, true)])],
		[
			"{ tasks: [{ worker: scout | reviewer, task: string }] }",
			objectOf([
				field("tasks", listOf(objectOf([field("worker", enumOf(["scout", "reviewer"])), field("task", STRING)]))),
			]),
		],
		["{ q: Question }", objectOf([field("q", QUESTION)])],
		["toString | constructor", enumOf(["toString", "constructor"])],
	])("%s", (written, type) => {
		const { value, faults } = readType(written);
		expect(faults).toEqual([]);
		expect(value).toEqual(type);
	});
});

describe("short form refuses", () => {
	it.each<[string, { path: string; source: string }[]]>([
		["strin", [{ path: "plan.output", source: "strin" }]],
		["integer", [{ path: "plan.output", source: "integer" }]],
		["any", [{ path: "plan.output", source: "any" }]],
		["5", [{ path: "plan.output", source: "5" }]],
		["scout |", [{ path: "plan.output", source: "|" }]],
		["a || b", [{ path: "plan.output", source: "|" }]],
		["a | b | a", [{ path: "plan.output", source: "a" }]],
		[
			"string | number",
			[
				{ path: "plan.output", source: "string" },
				{ path: "plan.output", source: "number" },
			],
		],
		["[]", [{ path: "plan.output", source: "[]" }]],
		["[string, number]", [{ path: "plan.output", source: "number" }]],
		["[strng]", [{ path: "plan.output[]", source: "strng" }]],
		["{}", [{ path: "plan.output", source: "{}" }]],
		// A quoted type is text to YAML: refused whole, never read as an enum of `{ s: a` and `b }`.
		['"{ ok: boolean }"', [{ path: "plan.output", source: '"{ ok: boolean }"' }]],
		['"{ status: done | failed }"', [{ path: "plan.output", source: '"{ status: done | failed }"' }]],
		["'[string]'", [{ path: "plan.output", source: "'[string]'" }]],
		["done | failed, maybe", [{ path: "plan.output", source: "failed, maybe" }]],
		["{ first-task: string }", [{ path: "plan.output.first-task", source: "first-task" }]],
		["{ 1st: string }", [{ path: "plan.output.1st", source: "1st" }]],
		["{ if: string }", [{ path: "plan.output.if", source: "if" }]],
		["{ a: string, a?: number }", [{ path: "plan.output.a", source: "a?" }]],
		["{ a: }", [{ path: "plan.output.a", source: "a" }]],
		[
			"{ tasks: [{ worker: scout, task: strng }], n: [] }",
			[
				{ path: "plan.output.tasks[].worker", source: "scout" },
				{ path: "plan.output.tasks[].task", source: "strng" },
				{ path: "plan.output.n", source: "[]" },
			],
		],
		["{ a: { json-schema: { type: string } } }", [{ path: "plan.output.a.json-schema", source: "json-schema" }]],
		["constructor", [{ path: "plan.output", source: "constructor" }]],
	])("%s", (written, expected) => {
		const { value, refused } = readType(written);
		expect(value).toBeUndefined();
		expect(refused.map(({ path, source }) => ({ path, source }))).toEqual(expected);
		for (const r of refused) expect(r.line).toBe(5);
	});

	it("points at the exact column of an enum value, and at the whole scalar when quoting changes it", () => {
		const plain = readType("scout | scout").refused[0];
		expect(plain.column).toBe(VALUE_COLUMN + "scout | ".length);
		const escaped = readType('"scout | \\x73cout"').refused[0];
		expect(escaped).toMatchObject({ column: VALUE_COLUMN, source: '"scout | \\x73cout"' });
	});

	it("says a quoted type is text, and how to write it", () => {
		expect(readType('"{ ok: boolean }"').faults[0].message).toMatch(
			/quoted, so YAML reads it as text: write the type without quotes/,
		);
		expect(readType("done | {x}").faults[0].message).toMatch(/`\{x\}` is not an enum value/);
	});

	it("names the nearest type", () => {
		expect(readType("strin").faults[0].expected).toEqual(["string"]);
		expect(readType("strin").faults[0].code).toBe("schema-invalid");
	});
});
