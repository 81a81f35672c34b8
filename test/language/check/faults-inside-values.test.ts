/**
 * Faults from the small languages inside YAML values (conditions, types, durations), raised while a flow
 * is checked: each points INSIDE the value, at the token that is wrong, when the scalar's source is its
 * text (plain, or quoted without escapes), and at the whole value when it is not (escapes, folded lines),
 * because a column inside such a value could be wrong.
 */
import { describe, expect, it } from "vitest";
import { at, covered, head, judge } from "../helpers.ts";

const loopOver = (cond: string, output: string) =>
	`${head(`  - id: l\n    loop: ${cond}\n    max: 2\n    do:\n      - id: a\n        agent: scout\n        output: ${output}\n`)}\n## a\nx\n`;
const agentWith = (extra: string) => `${head(`  - id: a\n    agent: scout\n${extra}`)}\n## a\nx\n`;

/** name → [flow text, the one fault as `code line:col`, the token it covers]. */
const inside: Record<string, [text: string, fault: string, covers: string]> = {
	"condition-syntax: a single `=`": [loopOver("a.output.ok = true", "{ ok: boolean }"), "condition-syntax 7:23", "="],
	"condition-syntax: a ternary, in single quotes": [
		loopOver("'a.output.ok && a.output.n ? 1 : 2'", "{ ok: boolean, n: number }"),
		"condition-syntax 7:38",
		"?",
	],
	"condition-unknown-address: a field the output lacks": [
		loopOver("a.output.okk", "{ ok: boolean }"),
		"condition-unknown-address 7:20",
		"okk",
	],
	"condition-unknown-address: a name nothing defines": [
		loopOver("a.output.ok && b.ok", "{ ok: boolean }"),
		"condition-unknown-address 7:26",
		"b",
	],
	"condition-type: a number compared with a string": [
		loopOver('a.output.n == "x"', "{ n: number }"),
		"condition-type 7:22",
		"==",
	],
	"condition-type: an agent's untyped text": [
		`${head("  - id: l\n    loop: a.output\n    max: 2\n    do:\n      - id: a\n        agent: scout\n")}\n## a\nx\n`,
		"condition-type 7:11",
		"a.output",
	],
	"condition-enum-value: plain": [
		loopOver('a.output.s == "aproved"', "{ s: approved | rejected }"),
		"condition-enum-value 7:25",
		'"aproved"',
	],
	"condition-enum-value: double-quoted without escapes": [
		loopOver(`"a.output.s == 'aproved'"`, "{ s: approved | rejected }"),
		"condition-enum-value 7:26",
		"'aproved'",
	],
	"condition-free-string": [
		`${head('  - id: q\n    agent: interviewer\n    output: { question: Question }\n  - id: go\n    ask-from: q.output.question\n  - id: g\n    choice:\n      - when: go.output.answer == "yes"\n        do:\n          - id: a\n            agent: scout\n    default: []\n')}\n## q\nx\n\n## a\nx\n`,
		"condition-free-string 13:35",
		'"yes"',
	],
	"schema-invalid: an element type misspelt": [
		agentWith("    output: { tasks: [strng] }\n"),
		"schema-invalid 8:23",
		"strng",
	],
	"schema-invalid: in the flow's input": [
		agentWith("").replace("input: string", "input: { goal: strin }"),
		"schema-invalid 4:16",
		"strin",
	],
	"schema-invalid: an enum value repeated": [agentWith("    output: { s: a | b | a }\n"), "schema-invalid 8:26", "a"],
	"duration-invalid: a unit that is not one": [agentWith("    timeout: 1h30min\n"), "duration-invalid 8:18", "min"],
	"duration-invalid: units out of order": [agentWith("    timeout: 30m1h\n"), "duration-invalid 8:17", "1h"],
	"duration-invalid: a zero flow timeout": [
		`${head("  - id: a\n    agent: scout\n", "timeout: 0s\n")}\n## a\nx\n`,
		"duration-invalid 5:10",
		"0s",
	],
	"duration-invalid: a check's, quoted": [
		head('  - id: tests\n    check: t.sh\n    timeout: "2 m"\n'),
		"duration-invalid 8:15",
		"2 m",
	],
	"duration-invalid: an ask's": [
		head("  - id: go\n    ask: Sure?\n    timeout: 10mins\n"),
		"duration-invalid 8:16",
		"mins",
	],
};

/** name → [flow text, the one fault as `code line:col`, the whole value it covers]. */
const whole: Record<string, [text: string, fault: string, covers: string]> = {
	"condition-enum-value: double-quoted with escapes": [
		loopOver('"a.output.s == \\"aproved\\""', "{ s: approved | rejected }"),
		"condition-enum-value 7:11",
		'"a.output.s == \\"aproved\\""',
	],
	"condition-enum-value: a folded scalar": [
		`${head('  - id: l\n    loop: >-\n      a.output.s ==\n      "aproved"\n    max: 2\n    do:\n      - id: a\n        agent: scout\n        output: { s: approved | rejected }\n')}\n## a\nx\n`,
		"condition-enum-value 7:11",
		'>-\n      a.output.s ==\n      "aproved"\n',
	],
};

/** The column where the value of the fault's line starts (after `key: ` or `- key: `). */
function valueColumn(text: string, line: number): number {
	const source = text.split("\n")[line - 1];
	return source.indexOf(": ") + 3;
}

describe("faults inside YAML values point at the wrong token", () => {
	for (const [name, [text, fault, covers]] of Object.entries(inside)) {
		it(name, () => {
			const faults = judge(text).faults;
			expect(faults.map(at)).toEqual([fault]);
			expect(covered(text, faults[0])).toBe(covers);
			expect(faults[0].column).toBeGreaterThanOrEqual(valueColumn(text, faults[0].line));
		});
	}
});

describe("faults inside values whose source is not their text point at the whole value", () => {
	for (const [name, [text, fault, covers]] of Object.entries(whole)) {
		it(name, () => {
			const faults = judge(text).faults;
			expect(faults.map(at)).toEqual([fault]);
			expect(covered(text, faults[0])).toBe(covers);
		});
	}
});

describe("the path continues into the value", () => {
	it("names the key and, for a type, the place inside it", () => {
		expect(judge(inside["condition-syntax: a single `=`"][0]).faults[0].path).toBe("l.loop");
		expect(judge(inside["schema-invalid: an element type misspelt"][0]).faults[0].path).toBe("a.output.tasks[]");
		expect(judge(inside["condition-free-string"][0]).faults[0].path).toBe("g.choice[1].when");
	});
});
