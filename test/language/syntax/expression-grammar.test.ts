// The grammar alone, as Shopify's grammar.spec does: what `Condition` and `Address` recognise and refuse.
import { describe, expect, it } from "vitest";
import { RESERVED_WORDS } from "../../../src/language/syntax/index.ts";
import { expressionGrammar } from "../../../src/language/syntax/grammars.ts";

const CONDITION_MATCHES = [
	"plan.ok",
	"  plan.ok  ",
	"!plan.ok",
	"!a == b",
	"a && b || c",
	'review.output.status == "approved"',
	"review.output.status != 'rejected'",
	"size(deliver.ledger) == 0",
	"size ( x ) > 1",
	"has(plan.output.note)",
	"x in [1, 2, 3]",
	"x in ['a', \"b\"]",
	"inbox in items",
	"a < b && a <= b && a > b && a >= b",
	"1 + 2 * 3 - 4 / 5 % 6 > 0",
	"-1 < -x",
	"a - b > 0",
	"a-1 > 0",
	"1.5e3 == 1500",
	"2E-2 < 1",
	"tasks.all(t, t.ok)",
	'tasks.exists(t, t.output.kind == "bug")',
	"tasks.all(t, t.subtasks.exists(s, s.ok))",
	'name.contains("x")',
	"name.startsWith(prefix) || name.endsWith('.md')",
	'"abc".contains(x)',
	"x . contains ( y )",
	"(a || b) && c",
	"[1, 2].exists(n, n > 1)",
	"plan.all",
	"truex == falsey",
	"size_of == 1",
	'"tab\\tquote\\"slash\\\\" == x',
	"'it\\'s' == x",
	"x == []",
];

const CONDITION_REFUSES = [
	"",
	"   ",
	"a ? b : c",
	"{a: 1}",
	"a = b",
	"a === b",
	"a & b",
	"a | b",
	"foo(x)",
	"x.foo(y)",
	"x.size()",
	"ask-next == 1",
	"a.b-c",
	"null",
	"a.if",
	"a[0]",
	"1h",
	"(a",
	'"abc',
	"a ==",
	"x.all(v)",
	"x.all(1, v)",
	'"\\d"',
	"'a\nb'",
	"a.true",
	"1.",
	".5",
	"a..b",
	"[1,]",
	"has(1)",
	"a b",
	"é == 1",
];

const ADDRESS_MATCHES = ["input", "plan.output.tasks", " item.text ", "x.contains", "ask_next", "_a1.B2"];
const ADDRESS_REFUSES = ["", "a b", "a.", "1", "a.b-c", "x.contains(y)", "a.if", "a == b", "(a)", "size(x)", "a[0]"];

describe("grammar/expression.ohm", () => {
	const g = expressionGrammar();
	it.each(CONDITION_MATCHES)("Condition matches %j", (text) => {
		expect(g.match(text, "Condition").succeeded()).toBe(true);
	});
	it.each(CONDITION_REFUSES)("Condition refuses %j", (text) => {
		expect(g.match(text, "Condition").failed()).toBe(true);
	});
	it.each(ADDRESS_MATCHES)("Address matches %j", (text) => {
		expect(g.match(text, "Address").succeeded()).toBe(true);
	});
	it.each(ADDRESS_REFUSES)("Address refuses %j", (text) => {
		expect(g.match(text, "Address").failed()).toBe(true);
	});
	it("refuses every reserved word as a name, and only those", () => {
		for (const word of RESERVED_WORDS) {
			expect(g.match(word, "Address").failed(), word).toBe(true);
			expect(g.match(`${word}_x`, "Address").succeeded(), `${word}_x`).toBe(true);
			expect(g.match(`a.${word}`, "Address").failed(), `a.${word}`).toBe(true);
		}
		for (const word of ["size", "has", "all", "exists", "contains", "input", "item", "diff", "output", "ok"]) {
			expect(g.match(word, "Address").succeeded(), word).toBe(true);
		}
	});
});
