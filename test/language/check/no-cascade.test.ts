/**
 * One mistake, one fault: when something is refused, what reads it is not reported again. Each case below
 * is one mistake whose consequences used to surface as a second fault somewhere else in the file.
 */
import { describe, expect, it } from "vitest";
import { at, covered, flowFolder, head, judge } from "../helpers.ts";

const sections = (...ids: string[]) => ids.map((id) => `\n## ${id}\nx\n`).join("");
const tasks = "  - id: plan\n    agent: planner\n    output: { tasks: [{ text: string }] }\n";
const overItems = (from: string) =>
	`  - id: m\n    map-from: ${from}\n    max: 2\n    do:\n      - id: a\n        agent: scout\n        reads: [item.text]\n`;

/** name → [flow text, the one fault, the text it covers]. */
const cases: Record<string, [text: string, fault: string, covers: string]> = {
	"a map over nothing: its body's `item` reads": [
		head(tasks + overItems("plna.output.tasks")) + sections("plan", "a"),
		"unknown-address 10:15",
		"plna",
	],
	"a map over a non-list: its body's `item` reads": [
		head(tasks.replace("[{ text: string }]", "string") + overItems("plan.output.tasks")) + sections("plan", "a"),
		"key-type 10:15",
		"plan.output.tasks",
	],
	"an output type that did not read: reads into it": [
		head(
			"  - id: a\n    agent: scout\n    output: { x: strng }\n  - id: b\n    agent: scout\n    reads: [a.output.x]\n",
		) + sections("a", "b"),
		"schema-invalid 8:18",
		"strng",
	],
	"an output type that did not read: a condition on it": [
		head(
			"  - id: l\n    loop: a.output.ok\n    max: 2\n    do:\n      - id: a\n        agent: scout\n        output: { ok: bool }\n",
		) + sections("a"),
		"schema-invalid 12:23",
		"bool",
	],
	"a misspelt `output:`: reads into the output": [
		head(
			"  - id: a\n    agent: scout\n    outptu: { x: string }\n  - id: b\n    agent: scout\n    reads: [a.output.x]\n",
		) + sections("a", "b"),
		"unknown-key 8:5",
		"outptu",
	],
	"a card whose options were refused: a condition on its answer": [
		head(
			'  - id: go\n    ask: Which?\n    options: [only]\n  - id: g\n    choice:\n      - when: go.output.answer == "only"\n        do:\n          - id: a\n            agent: scout\n    default: []\n',
		) + sections("a"),
		"ask-options-count 8:14",
		"[only]",
	],
	"a call to no flow: a condition on its output": [
		head(
			"  - id: sub\n    flow: nothere\n    input: input\n  - id: l\n    loop: sub.output.ok\n    max: 1\n    do:\n      - id: a\n        agent: scout\n",
		) + sections("a"),
		"unknown-flow 7:11",
		"nothere",
	],
	"a duplicate id: reads of the id": [
		head(
			"  - id: a\n    agent: scout\n    output: { x: string }\n  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n    reads: [a.output.x]\n",
		) + sections("a", "b"),
		"duplicate-id 9:9",
		"a",
	],
	"an input type that did not read: reads of its fields": [
		head("  - id: a\n    agent: scout\n    reads: [input.goal]\n").replace("input: string", "input: { goal: strng }") +
			sections("a"),
		"schema-invalid 4:16",
		"strng",
	],
	"no input at all: reads of its fields": [
		head("  - id: a\n    agent: scout\n    reads: [input.goal]\n").replace("input: string\n", "") + sections("a"),
		"missing-key 2:1",
		"",
	],
};

describe("no cascade", () => {
	for (const [name, [text, fault, covers]] of Object.entries(cases)) {
		it(name, () => {
			const faults = judge(text).faults;
			expect(faults.map(at)).toEqual([fault]);
			expect(covered(text, faults[0])).toBe(covers);
		});
	}

	it("a broken callee: the caller's reads of the call's output", () => {
		const broken =
			"---\nname: sub\ndescription: d\ninput: string\nnodes:\n  - id: s\n    agent: nobody\n---\n\n## s\nx\n";
		const text =
			head("  - id: call\n    flow: sub\n    input: input\n  - id: a\n    agent: scout\n    reads: [call.output.x]\n") +
			sections("a");
		expect(flowFolder({ t: text, sub: broken }).judgeOne("t").faults.map(at)).toEqual(["broken-flow 7:11"]);
	});
});
