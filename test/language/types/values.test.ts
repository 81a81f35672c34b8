// What the product does with a type: check a submitted value, carry a loop's value, make one up for a dry
// run, print it for `plan`, and hand it to a model as JSON Schema.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	BOOLEAN,
	enumOf,
	FREE_STRING,
	field,
	intersect,
	listOf,
	matches,
	NUMBER,
	objectOf,
	QUESTION,
	sameType,
	sampleValue,
	STRING,
	TEXT,
	type Type,
	typeToJsonSchema,
	typeToString,
} from "../../../src/language/types/index.ts";
import { readType } from "./helpers.ts";

const TASKS = objectOf([
	field("tasks", listOf(objectOf([field("worker", enumOf(["scout", "reviewer"])), field("task", STRING)]))),
	field("note", STRING, true),
]);

describe("matches", () => {
	it.each<[unknown, Type]>([
		["x", STRING],
		[1.5, NUMBER],
		[false, BOOLEAN],
		["scout", enumOf(["scout", "reviewer"])],
		[[], listOf(NUMBER)],
		[{ tasks: [{ worker: "scout", task: "look" }] }, TASKS],
		[{ tasks: [], note: "n" }, TASKS],
		[{}, objectOf([field("constructor", STRING, true)])],
		["anything", TEXT],
		["an answer", FREE_STRING],
		[{ question: "Go?", options: [{ label: "Yes" }, { label: "No", description: "stop" }] }, QUESTION],
	])("%j fits", (value, type) => {
		expect(matches(value, type)).toEqual({ ok: true });
	});

	it.each<[unknown, Type, string, string]>([
		[1, STRING, "", "string"],
		[null, STRING, "", "string"],
		[Number.NaN, NUMBER, "", "number"],
		["true", BOOLEAN, "", "boolean"],
		["coder", enumOf(["scout", "reviewer"]), "", "one of scout, reviewer"],
		[
			{
				tasks: [
					{ worker: "scout", task: "a" },
					{ worker: "coder", task: "b" },
				],
			},
			TASKS,
			"tasks[1].worker",
			"one of scout, reviewer",
		],
		[{ note: "n" }, TASKS, "tasks", "[{ worker: scout | reviewer, task: string }]"],
		[{ tasks: [], extra: 1 }, TASKS, "extra", "no such field (fields: tasks, note)"],
		[{ tasks: [], note: null }, TASKS, "note", "string"],
		[[1, "2"], listOf(NUMBER), "[1]", "number"],
		["x", listOf(NUMBER), "", "[number]"],
	])("%j does not fit %#", (value, type, path, expected) => {
		expect(matches(value, type)).toEqual({ ok: false, path, expected });
	});
});

describe("intersect (a loop's carry)", () => {
	it("keeps the fields both sides share with equal types, through lists", () => {
		const first = listOf(objectOf([field("text", STRING)]));
		const next = listOf(objectOf([field("id", STRING), field("text", STRING)]));
		expect(intersect(first, next)).toEqual(listOf(objectOf([field("text", STRING)])));
	});

	it("drops fields whose types differ and makes a field optional if either side is", () => {
		const a = objectOf([field("n", NUMBER), field("s", STRING), field("o", STRING, true)]);
		const b = objectOf([field("n", STRING), field("s", STRING), field("o", STRING)]);
		expect(intersect(a, b)).toEqual(objectOf([field("s", STRING), field("o", STRING, true)]));
	});

	it("narrows nested objects", () => {
		const a = objectOf([field("x", objectOf([field("p", NUMBER), field("q", NUMBER)]))]);
		const b = objectOf([field("x", objectOf([field("p", NUMBER)]))]);
		expect(intersect(a, b)).toEqual(b);
	});

	it("is undefined when nothing is shared", () => {
		expect(intersect(objectOf([field("a", STRING)]), objectOf([field("b", STRING)]))).toBeUndefined();
		expect(intersect(STRING, NUMBER)).toBeUndefined();
		expect(intersect(enumOf(["a", "b"]), STRING)).toBeUndefined();
		expect(intersect(listOf(STRING), listOf(NUMBER))).toBeUndefined();
	});

	it("returns the type itself when both are the same", () => {
		expect(intersect(TASKS, TASKS)).toBe(TASKS);
	});
});

describe("sameType", () => {
	it("ignores the order of enum values and fields, and descriptions", () => {
		expect(sameType(enumOf(["a", "b"]), enumOf(["b", "a"]))).toBe(true);
		expect(
			sameType(objectOf([field("a", STRING), field("b", NUMBER)]), objectOf([field("b", NUMBER), field("a", STRING)])),
		).toBe(true);
		expect(sameType({ ...STRING, description: "x" }, STRING)).toBe(true);
	});

	it("tells apart optionality, kinds and values", () => {
		expect(sameType(objectOf([field("a", STRING, true)]), objectOf([field("a", STRING)]))).toBe(false);
		expect(sameType(STRING, FREE_STRING)).toBe(false);
		expect(sameType(enumOf(["a", "b"]), enumOf(["a", "c"]))).toBe(false);
		expect(sameType(enumOf(["a", "b"]), enumOf(["a", "b", "c"]))).toBe(false);
	});
});

/** Types built from the short notation's pieces, for properties. */
const anyType: fc.Arbitrary<Type> = fc.letrec<{ type: Type }>((tie) => ({
	type: fc.oneof(
		{ depthSize: "small", withCrossShrink: true },
		fc.constantFrom<Type>(STRING, NUMBER, BOOLEAN, enumOf(["a", "b"]), enumOf(["x y", "z"])),
		tie("type").map((t) => listOf(t)),
		fc
			.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c", "d_1"), tie("type"), fc.boolean()), {
				minLength: 1,
				maxLength: 3,
				selector: ([n]) => n,
			})
			.map((fs) => objectOf(fs.map(([n, t, o]) => field(n, t, o)))),
	),
})).type;

describe("sampleValue", () => {
	it("makes up a value the type accepts, the same every time", () => {
		fc.assert(
			fc.property(anyType, (t) => {
				expect(matches(sampleValue(t), t)).toEqual({ ok: true });
			}),
			{ numRuns: 500 },
		);
		expect(matches(sampleValue(QUESTION), QUESTION)).toEqual({ ok: true });
		// The same every time: the value is a function of the type alone, written out here by hand.
		expect(sampleValue(TASKS)).toEqual({ tasks: [{ worker: "scout", task: "sample" }], note: "sample" });
		expect(sampleValue(listOf(objectOf([field("n", NUMBER), field("b", BOOLEAN)])))).toEqual([{ n: 1, b: true }]);
		expect([TEXT, FREE_STRING].map(sampleValue)).toEqual(["sample text", "sample answer"]);
	});
});

describe("typeToString and typeToJsonSchema", () => {
	it("print the short notation", () => {
		expect(typeToString(TASKS)).toBe("{ tasks: [{ worker: scout | reviewer, task: string }], note?: string }");
		expect(typeToString(QUESTION)).toBe("Question");
		expect(typeToString(TEXT)).toBe("text");
		expect(typeToString(FREE_STRING)).toBe("free string");
	});

	it("prints what the notation reads back", () => {
		fc.assert(
			fc.property(anyType, (t) => {
				const { value, faults } = readType(typeToString(t));
				expect(faults).toEqual([]);
				expect(sameType(value as Type, t)).toBe(true);
			}),
			{ numRuns: 300 },
		);
	});

	it("gives JSON Schema that the long form reads back", () => {
		expect(typeToJsonSchema(TASKS)).toEqual({
			type: "object",
			properties: {
				tasks: {
					type: "array",
					items: {
						type: "object",
						properties: { worker: { type: "string", enum: ["scout", "reviewer"] }, task: { type: "string" } },
						required: ["worker", "task"],
						additionalProperties: false,
					},
				},
				note: { type: "string" },
			},
			required: ["tasks"],
			additionalProperties: false,
		});
		fc.assert(
			fc.property(anyType, (t) => {
				const strip = (s: unknown): unknown =>
					JSON.parse(JSON.stringify(s, (k, v) => (k === "additionalProperties" ? undefined : v)));
				const { value, faults } = readType(`{ json-schema: ${JSON.stringify(strip(typeToJsonSchema(t)))} }`);
				expect(faults).toEqual([]);
				expect(sameType(value as Type, t)).toBe(true);
			}),
			{ numRuns: 300 },
		);
	});
});
