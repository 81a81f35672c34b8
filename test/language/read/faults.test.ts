/**
 * The builder's refusals (stage "read" of the catalogue) that test/language/check/positions.test.ts does not cover:
 * each case is one mistake, and it must yield exactly one fault, at the line and column of the mistake,
 * covering the very text that is wrong.
 */
import { describe, expect, it } from "vitest";
import { at, covered, flowFolder, head, judge } from "../helpers.ts";

const agent = (extra: string, id = "look") => `  - id: ${id}\n    agent: scout\n${extra}`;
const callee = `---\nname: sub\ndescription: d\ninput: string\nnodes:\n${agent("")}---\n\n## look\nx\n`;

/** name → [flow text, the one fault as `code line:col`, the text it covers, the file's name]. */
const cases: Record<string, [text: string, fault: string, covers: string, name?: string]> = {
	"twin-keys: agent and agent-from": [
		`${head(agent("    agent-from: plan.output.worker\n"))}\n## look\nx\n`,
		"twin-keys 8:5",
		"agent-from",
	],
	"twin-keys: map and map-from, the body's section not reported again": [
		`${head("  - id: m\n    map: [a, b]\n    map-from: plan.output.tasks\n    max: 2\n    do:\n      - id: look\n        agent: scout\n")}\n## look\nx\n`,
		"twin-keys 8:5",
		"map-from",
	],
	"twin-keys: ask and ask-from": [
		head("  - id: go\n    ask: Sure?\n    ask-from: q.output.question\n"),
		"twin-keys 8:5",
		"ask-from",
	],
	"twin-keys: nodes and chain": [
		`---\nname: t\ndescription: d\ninput: string\nchain: "@scout"\nnodes:\n${agent("")}---\n\n## look\nx\n`,
		"twin-keys 5:1",
		"chain",
	],
	"reserved-name": [
		`${head(agent("")).replace("name: t", "name: resume")}\n## look\nx\n`,
		"reserved-name 2:7",
		"resume",
		"resume",
	],
	"retry-refused: check": [
		head("  - id: tests\n    check: .pi/checks/test.sh\n    retry: 1\n"),
		"retry-refused 8:5",
		"retry",
	],
	"retry-refused: commit": [
		`${head(`${agent("")}  - id: save\n    commit: look\n    retry: 2\n`)}\n## look\nx\n`,
		"retry-refused 10:5",
		"retry",
	],
	"retry-refused: ask": [head("  - id: go\n    ask: Sure?\n    retry: 1\n"), "retry-refused 8:5", "retry"],
	"retry-refused: loop": [
		`${head("  - id: l\n    loop: a.output.ok\n    max: 2\n    retry: 1\n    do:\n      - id: a\n        agent: scout\n        output: { ok: boolean }\n")}\n## a\nx\n`,
		"retry-refused 9:5",
		"retry",
	],
	"among-without-from": [
		`${head(agent("    among: [scout, reviewer]\n"))}\n## look\nx\n`,
		"among-without-from 8:5",
		"among",
	],
	"verdict-with-output": [
		`${head("  - id: l\n    loop: r.output.approved\n    max: 2\n    ledger: l\n    do:\n      - id: r\n        agent: reviewer\n        verdict: l\n        output: { approved: boolean }\n")}\n## r\nx\n`,
		"verdict-with-output 14:9",
		"output",
	],
	"ask-form-conflict: options and confirm": [
		head("  - id: go\n    ask: Sure?\n    options: [yes, no]\n    confirm: true\n"),
		"ask-form-conflict 9:5",
		"confirm",
	],
	"ask-form-conflict: ask-from with options": [
		`${head("  - id: q\n    agent: interviewer\n    output: { question: Question }\n  - id: go\n    ask-from: q.output.question\n    options: [a, b]\n")}\n## q\nx\n`,
		"ask-form-conflict 11:5",
		"options",
	],
	"ask-form-conflict: enough on a yes/no card": [
		head("  - id: go\n    ask: Sure?\n    confirm: true\n    enough: Stop\n"),
		"ask-form-conflict 9:5",
		"enough",
	],
	"ask-options-count: one": [
		head("  - id: go\n    ask: Which?\n    options: [only]\n"),
		"ask-options-count 8:14",
		"[only]",
	],
	"ask-options-count: five": [
		head("  - id: go\n    ask: Which?\n    options: [a, b, c, d, e]\n"),
		"ask-options-count 8:14",
		"[a, b, c, d, e]",
	],
	"ask-options-duplicate: the second label": [
		head("  - id: go\n    ask: Which?\n    options: [keep, { label: drop }, keep]\n"),
		"ask-options-duplicate 8:38",
		"keep",
	],
	"ask-default-mismatch: not an option": [
		head("  - id: go\n    ask: Which?\n    options: [keep, drop]\n    default: maybe\n"),
		"ask-default-mismatch 9:14",
		"maybe",
	],
	"ask-default-mismatch: confirm takes a boolean": [
		head("  - id: go\n    ask: Sure?\n    confirm: true\n    default: yes please\n"),
		"ask-default-mismatch 9:14",
		"yes please",
	],
	"ask-default-mismatch: free text takes a string": [
		head("  - id: go\n    ask: Anything?\n    default: [a]\n"),
		"ask-default-mismatch 8:14",
		"[a]",
	],
};

describe("read-stage faults: one mistake, one fault, at the mistake", () => {
	for (const [name, [text, fault, covers, file]] of Object.entries(cases)) {
		it(name, () => {
			const faults = judge(text, file ?? "t").faults;
			expect(faults.map(at)).toEqual([fault]);
			expect(covered(text, faults[0])).toBe(covers);
		});
	}

	it("retry-refused: flow (a call that would check otherwise)", () => {
		const folder = flowFolder({
			t: head("  - id: run_sub\n    flow: sub\n    input: input\n    retry: 1\n"),
			sub: callee,
		});
		const r = folder.judgeOne("t");
		expect(r.faults.map(at)).toEqual(["retry-refused 9:5"]);
		expect(r.faults[0].message).toContain("rerunning a flow");
	});

	it("each kind's retry refusal says what to do instead", () => {
		const message = (text: string) => judge(text).faults[0].message;
		expect(message(cases["retry-refused: check"][0])).toContain("raise its `timeout:`");
		expect(message(cases["retry-refused: commit"][0])).toContain("node that writes the message");
		expect(message(cases["retry-refused: loop"][0])).toContain("raise its `max:`");
	});

	it("a refused node's body is not reported again, whatever refused it", () => {
		const body = "    do:\n      - id: inner\n        agent: scout\n        reads: [nothing]\n";
		const badId = `${head(`  - id: bad-id\n    loop: inner.output.ok\n    max: 2\n${body}`)}\n## inner\nx\n`;
		expect(judge(badId).faults.map(at)).toEqual(["invalid-id 6:9"]);
		const noKind = `${head(`  - id: m\n    max: 2\n${body}`)}\n## inner\nx\n`;
		expect(judge(noKind).faults.map(at)).toEqual(["node-kind 6:9"]);
	});
});
