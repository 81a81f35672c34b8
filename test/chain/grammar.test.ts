// The chain grammar alone: what each rule matches and refuses, and how tokens are classified.
import { describe, expect, it } from "vitest";
import { chainGrammar } from "../../src/chain/grammar.ts";
import { tokenize } from "../../src/chain/tokens.ts";

const TABLE: Record<string, { match: string[]; noMatch: string[] }> = {
	agentRef: {
		match: ["@research", "@fast-research", "@v1.2-review", "@research:gather", "@_x", "@a.b-c:d-e", "@A1"],
		noMatch: ["@", "@-x", "@1x", "@a:", "research", "@a:b:c", "@a->", "@a b", "@:x"],
	},
	flowRef: {
		match: ["flow:build", "workflow:build", "flow:a-b.c", "flow:_x"],
		noMatch: ["flow:", "flows:x", "flow:-x", "Flow:x", "workflow:", "flow:a/b"],
	},
	templateRef: {
		match: ["template:planning", "template:review/deep", "template:a.b", "template:a-b/c_d"],
		noMatch: [
			"template:../x",
			"template:a/../b",
			"template:/abs",
			"template:a..b",
			"template:",
			"template:a/",
			"template:.x",
		],
	},
	quoted: {
		match: [
			'"goal"',
			"'goal'",
			'"a -> b"',
			'"say \\"hi\\""',
			'"back\\\\slash"',
			'""',
			"'it\\'s'",
			'"it\'s"',
			'"a\nparagraph"',
		],
		noMatch: ['"abc', "'abc\"", '"a\\"', "abc", '"a"b', "'a\\'"],
	},
	flag: {
		match: ["--model", "--continue-on-error", "--x=y", "--modle", "---"],
		noMatch: ["--", "-m", "model", "--a b", "--a->"],
	},
	globalsMark: { match: ["--"], noMatch: ["---", "--x", "-", "- -"] },
	arrow: { match: ["->"], noMatch: ["-", "=>", "-> ", ">"] },
	Chain: {
		match: [
			"",
			"   ",
			"@a",
			"@a -> @b",
			"@a->@b",
			'"x -> y" -> @b',
			"@a --model anthropic/claude-sonnet-4-5:high -> @b",
			"@a -- --retry 1",
			"@a\n  -> @b",
			// The grammar is total: broken tokens are cases, found and reported by the reader.
			'"abc',
			"-> ->",
			"@a@b",
			'"a"b',
		],
		noMatch: [],
	},
};

describe("chain grammar rules", () => {
	for (const [rule, { match, noMatch }] of Object.entries(TABLE)) {
		it.each(match)(`${rule} matches %j`, (input) => {
			expect(chainGrammar.match(input, rule).succeeded()).toBe(true);
		});
		if (noMatch.length > 0) {
			it.each(noMatch)(`${rule} refuses %j`, (input) => {
				expect(chainGrammar.match(input, rule).succeeded()).toBe(false);
			});
		}
	}

	it("describes a failure by the rule's description, through the public API", () => {
		const m = chainGrammar.match("@", "agentRef");
		expect(m.failed()).toBe(true);
		if (!m.failed()) return;
		expect(m.getRightmostFailurePosition()).toBe(0);
		expect(m.getExpectedText()).toContain("an agent reference such as @research");
	});
});

describe("tokens", () => {
	const kinds = (text: string) => {
		const t = tokenize(text);
		if (!t.ok) throw new Error("the chain grammar is total");
		return t.segments.map((s) => s.tokens.map((k) => k.kind));
	};

	it.each([
		['@a -> flow:b -> template:c -> "d"', [["agent"], ["flow"], ["template"], ["quoted"]]],
		["@a --model x/y", [["agent", "flag", "word"]]],
		['"a -> b" -> @c', [["quoted"], ["agent"]]],
		["'a' -- --retry 1", [["quoted", "globals", "flag", "word"]]],
		['@a@b "a"b', [["badRef", "glued"]]],
		['@a "unclosed -> @b', [["agent", "unterminated"]]],
		["-> ->", [[], [], []]],
		["@fast-research->@b", [["agent"], ["agent"]]],
	])("%j splits into %j", (text, expected) => {
		expect(kinds(text)).toEqual(expected);
	});

	it("keeps offsets and resolves escapes", () => {
		const t = tokenize('@a:lbl -> "say \\"hi\\""');
		if (!t.ok) throw new Error("the chain grammar is total");
		const [a] = t.segments[0].tokens;
		const [goal] = t.segments[1].tokens;
		expect(a).toMatchObject({ kind: "agent", name: "a", label: "lbl", start: 0, end: 6 });
		expect(goal).toMatchObject({ kind: "quoted", text: 'say "hi"', exact: false, start: 10, end: 22 });
		expect(t.segments[1].arrow).toEqual({ start: 7, end: 9 });
	});
});
