// The tree a condition becomes: CEL's precedence and associativity, decoded literals, and every node's
// range slicing back to its source text, offset by the base.
import { describe, expect, it } from "vitest";
import { type Expr, parseAddress, parseCondition } from "../../../src/language/syntax/index.ts";
import { lineTable } from "../../../src/text/index.ts";
import { alone } from "./helpers.ts";

/** A compact, parenthesised reading of a tree, so precedence shows at a glance. */
function show(e: Expr): string {
	switch (e.kind) {
		case "number":
		case "bool":
			return String(e.value);
		case "string":
			return JSON.stringify(e.value);
		case "list":
			return `[${e.items.map(show).join(", ")}]`;
		case "address":
			return e.segments.map((s) => s.name).join(".");
		case "unary":
			return `(${e.op}${show(e.operand)})`;
		case "binary":
			return `(${show(e.left)} ${e.op} ${show(e.right)})`;
		case "call":
			return `${e.fn}(${show(e.arg)})`;
		case "method":
			return `${show(e.target)}.${e.method}(${show(e.arg)})`;
		case "macro":
			return `${show(e.target)}.${e.method}(${e.variable.name}, ${show(e.body)})`;
	}
}

function children(e: Expr): Expr[] {
	switch (e.kind) {
		case "list":
			return e.items;
		case "unary":
			return [e.operand];
		case "binary":
			return [e.left, e.right];
		case "call":
			return [e.arg];
		case "method":
			return [e.target, e.arg];
		case "macro":
			return [e.target, e.body];
		default:
			return [];
	}
}

const tree = (text: string) => {
	const { value, faults } = parseCondition(text, alone(text));
	expect(faults).toEqual([]);
	return value as Expr;
};

describe("condition trees", () => {
	it.each([
		["a || b && c", "(a || (b && c))"],
		["a && b || c", "((a && b) || c)"],
		["!a == b", "((!a) == b)"],
		["a == b == c", "((a == b) == c)"],
		["1 + 2 * 3", "(1 + (2 * 3))"],
		["1 - 2 - 3", "((1 - 2) - 3)"],
		["8 / 4 % 3", "((8 / 4) % 3)"],
		["-x * 2 < 3 + y", "(((-x) * 2) < (3 + y))"],
		["a + 1 in [1, 2]", "((a + 1) in [1, 2])"],
		["size(x) > 0 && x.all(t, t.ok)", "((size(x) > 0) && x.all(t, t.ok))"],
		["(a || b) && c", "((a || b) && c)"],
		["s.startsWith('a') || s.endsWith(\"b\")", '(s.startsWith("a") || s.endsWith("b"))'],
		['"x".contains(y)', '"x".contains(y)'],
		["has(a.b) && true", "(has(a.b) && true)"],
		["1.5e3 == 1500", "(1500 == 1500)"],
		["'it\\'s' == \"tab\\there\"", '("it\'s" == "tab\\there")'],
	])("%s reads as %s", (text, expected) => {
		expect(show(tree(text))).toBe(expected);
	});

	it("gives every node and segment a range that slices back to its source", () => {
		const prefix = "loop: ";
		const text = 'deliver.ledger.exists(o, o.text.contains("x")) || size(plan.output.tasks) * 2 >= -1';
		const file = `${prefix}${text}\n`;
		const { value } = parseCondition(text, { file: "f.md", base: prefix.length, table: lineTable(file), path: "p" });
		const seen: string[] = [];
		const visit = (e: Expr) => {
			const src = file.slice(e.range.start.offset, e.range.end.offset);
			seen.push(src);
			expect(e.range.start.column).toBe(e.range.start.offset + 1);
			if (e.kind === "address") {
				for (const s of e.segments) expect(file.slice(s.range.start.offset, s.range.end.offset)).toBe(s.name);
			}
			if (e.kind === "binary") expect(file.slice(e.opRange.start.offset, e.opRange.end.offset)).toBe(e.op);
			if (e.kind === "macro" || e.kind === "method" || e.kind === "call") {
				expect(file.slice(e.nameRange.start.offset, e.nameRange.end.offset)).toBe(e.kind === "call" ? e.fn : e.method);
			}
			children(e).forEach(visit);
		};
		visit(value as Expr);
		expect(seen[0]).toBe(text);
		expect(seen).toContain('"x"');
		expect(seen).toContain("plan.output.tasks");
	});

	it("parses a bare address into segments with their own ranges", () => {
		const { value } = parseAddress(" plan.output.tasks ", alone(" plan.output.tasks "));
		expect(value?.segments.map((s) => [s.name, s.range.start.column, s.range.end.column])).toEqual([
			["plan", 2, 6],
			["output", 7, 13],
			["tasks", 14, 19],
		]);
		expect(value?.range.start.column).toBe(2);
	});
});
