// Every refusal of the condition language, with its code and exact place: the fault starts at the
// offending token and spans it, alone and inside a YAML value of a flow file.
import { describe, expect, it } from "vitest";
import { parseAddress, parseCondition, scalarBase } from "../../../src/language/syntax/index.ts";
import { alone, flowFile, nodeAt, where } from "./helpers.ts";

// [condition, the refused token as it appears in the text (first occurrence from `from`), expected did-you-mean]
const REFUSALS: [string, string, string[]?][] = [
	["a ? b : c", "?"],
	["plan.ok && {a: 1}", "{"],
	["a = b", "="],
	["a === b", "="],
	["a & b", "&"],
	["a | b", "|"],
	["foo(x)", "foo"],
	["sise(x) > 1", "sise", ["size"]],
	["x.foo(y)", "foo"],
	["x.exist(v, v.ok)", "exist", ["exists"]],
	["x.size() > 1", "size", ["size"]],
	["ask-next.ok == true", "ask-next", ["ask_next"]],
	["plan.output.first-task", "first-task", ["first_task"]],
	["null == a", "null"],
	["a.if", "if"],
	["a.true", "true"],
	["tasks[0]", "["],
	["x > 1h", "1h"],
	['x == "abc', '"abc'],
	['x == "a\\db"', "\\d"],
	["a b", "b"],
];

describe("condition refusals", () => {
	it.each(REFUSALS)("%j is refused at %j", (text, token, expected) => {
		const { faults, value } = parseCondition(text, alone(text));
		expect(value).toBeUndefined();
		expect(faults).toHaveLength(1);
		const [f] = faults;
		const start = text.indexOf(token, token === "=" ? text.lastIndexOf("=") : 0);
		expect(where(f)).toEqual({
			code: "condition-syntax",
			line: 1,
			column: start + 1,
			endLine: 1,
			endColumn: start + token.length + 1,
		});
		if (expected) expect(f.expected).toEqual(expected);
		expect(f.message.length).toBeGreaterThan(10);
	});

	it("an unfinished condition points just past its end", () => {
		const text = "a &&";
		expect(where(parseCondition(text, alone(text)).faults[0])).toEqual({
			code: "condition-syntax",
			line: 1,
			column: 5,
			endLine: 1,
			endColumn: 5,
		});
		const paren = "(a";
		expect(where(parseCondition(paren, alone(paren)).faults[0])).toMatchObject({ column: 3, endColumn: 3 });
	});

	it("an empty condition is one fault", () => {
		expect(parseCondition("", alone("")).faults.map((f) => f.code)).toEqual(["condition-syntax"]);
	});

	it("a bad address is invalid-address at the offending name", () => {
		const cases: [string, number, number][] = [
			["a.b-c", 3, 6],
			["a.if", 3, 5],
			["a b", 3, 4],
			["a.", 3, 3],
		];
		for (const [text, column, endColumn] of cases) {
			const { faults, value } = parseAddress(text, alone(text, "plan.reads"));
			expect(value, text).toBeUndefined();
			expect(where(faults[0]), text).toEqual({ code: "invalid-address", line: 1, column, endLine: 1, endColumn });
			expect(faults[0].path).toBe("plan.reads");
		}
	});
});

describe("a condition inside a YAML value", () => {
	const yaml = "name: build\nnodes:\n  - id: deliver\n    loop: tests.ok && size(x) = 0\n    max: 2\n";

	it("points at the column inside the value, on the value's line of the file", () => {
		const file = flowFile(yaml);
		const scalar = nodeAt(file.doc.contents, ["nodes", 0, "loop"]);
		const base = scalarBase(scalar as never, file.text, file.yamlBase);
		expect(base).toBeDefined();
		const value = (scalar as { value: string }).value;
		const { faults } = parseCondition(value, {
			file: "build.md",
			base: base as number,
			table: file.table,
			path: "deliver.loop",
		});
		// Line 5 of the file (after the opening fence); `=` is at column 31 of `    loop: tests.ok && size(x) = 0`.
		const line = file.text.split("\n")[4];
		expect(line.indexOf("=") + 1).toBe(31);
		expect(where(faults[0])).toEqual({ code: "condition-syntax", line: 5, column: 31, endLine: 5, endColumn: 32 });
		expect(file.text.slice(faults[0].offset, faults[0].endOffset)).toBe("=");
	});

	it("maps a quoted value without escapes exactly, one past the quote", () => {
		const file = flowFile('name: x\nnodes:\n  - id: gate\n    when: "a ? b : c"\n');
		const scalar = nodeAt(file.doc.contents, ["nodes", 0, "when"]);
		const base = scalarBase(scalar as never, file.text, file.yamlBase) as number;
		const { faults } = parseCondition("a ? b : c", { file: "x.md", base, table: file.table, path: "gate.when" });
		expect(file.text.slice(faults[0].offset, faults[0].endOffset)).toBe("?");
		expect(where(faults[0])).toMatchObject({ line: 5, column: 14 });
	});

	it("reports on the whole scalar when its source differs from its value (escapes)", () => {
		const file = flowFile('name: x\nnodes:\n  - id: gate\n    when: "a \\x3f b"\n');
		const scalar = nodeAt(file.doc.contents, ["nodes", 0, "when"]);
		expect(scalarBase(scalar as never, file.text, file.yamlBase)).toBeUndefined();
		const r = scalar.range as [number, number, number];
		const whole = file.table.range(file.yamlBase + r[0], file.yamlBase + r[1]);
		const value = (scalar as { value: string }).value;
		expect(value).toBe("a ? b");
		const { faults } = parseCondition(value, { file: "x.md", base: 0, table: file.table, path: "gate.when", whole });
		expect(where(faults[0])).toEqual({ code: "condition-syntax", line: 5, column: 11, endLine: 5, endColumn: 21 });
	});

	it("gives no exact base for a folded multi-line plain value", () => {
		const file = flowFile("name: x\nnodes:\n  - id: gate\n    when: a &&\n      b\n");
		const scalar = nodeAt(file.doc.contents, ["nodes", 0, "when"]);
		expect(scalarBase(scalar as never, file.text, file.yamlBase)).toBeUndefined();
	});
});
