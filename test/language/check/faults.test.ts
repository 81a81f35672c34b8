/**
 * The checker's refusals (stage "check") about agents, scopes, memory, carry, copies and sections that
 * test/language/check/positions.test.ts does not cover: one mistake, exactly one fault, covering the wrong text.
 */
import { describe, expect, it } from "vitest";
import { at, covered, head, judge } from "../helpers.ts";

const plan = "  - id: plan\n    agent: planner\n    output: { worker: scout | reviewer }\n";
const sections = (...ids: string[]) => ids.map((id) => `\n## ${id}\nx\n`).join("");

/** name → [flow text, the one fault as `code line:col`, the text it covers]. */
const cases: Record<string, [text: string, fault: string, covers: string]> = {
	"among-mismatch: a name outside the enum": [
		head(`${plan}  - id: act\n    agent-from: plan.output.worker\n    among: [scout, coder]\n`) +
			sections("plan", "act"),
		"among-mismatch 11:20",
		"coder",
	],
	"among-mismatch: a value left out": [
		head(`${plan}  - id: act\n    agent-from: plan.output.worker\n    among: [scout]\n`) + sections("plan", "act"),
		"among-mismatch 11:13",
		"scout",
	],
	// combo's code for it (issue 17): the value read has the wrong type for `agent-from`.
	"key-type: agent-from reads no enum": [
		head(
			"  - id: plan\n    agent: planner\n    output: { worker: string }\n  - id: act\n    agent-from: plan.output.worker\n    among: [scout, reviewer]\n",
		) + sections("plan", "act"),
		"key-type 10:17",
		"plan.output.worker",
	],
	"unknown-scope: memory names no enclosing node": [
		head("  - id: look\n    agent: scout\n    memory: nowhere\n") + sections("look"),
		"unknown-scope 8:13",
		"nowhere",
	],
	"unknown-scope: verdict names a block without a ledger": [
		head(
			"  - id: l\n    loop: r.output.approved\n    max: 2\n    do:\n      - id: r\n        agent: reviewer\n        verdict: l\n",
		) + sections("r"),
		"unknown-scope 12:18",
		"l",
	],
	"memory-output-mismatch: the second node's output": [
		head(
			"  - id: a\n    agent: scout\n    memory: flow\n    output: { x: string }\n  - id: b\n    agent: scout\n    memory: flow\n    output: { y: string }\n",
		) + sections("a", "b"),
		"memory-output-mismatch 13:13",
		"{ y: string }",
	],
	"carry-mismatch, and the body's read of the carry is not reported again": [
		head(
			"  - id: plan\n    agent: planner\n    output: { tasks: [{ text: string }] }\n  - id: l\n    loop: w.output.done\n    max: 2\n    carry: { first: plan.output.tasks, next: w.output.notes }\n    do:\n      - id: w\n        agent: scout\n        reads: [l.carry]\n        output: { done: boolean, notes: [{ id: string }] }\n",
		) + sections("plan", "w"),
		"carry-mismatch 12:12",
		"{ first: plan.output.tasks, next: w.output.notes }",
	],
	"copies-needed: a map that writes two at a time": [
		head(
			"  - id: m\n    map: [a, b]\n    concurrency: 2\n    do:\n      - id: c\n        agent: coder\n        reads: [item]\n",
		) + sections("c"),
		"copies-needed 6:9",
		"m",
	],
	"copies-needed: a parallel with one writing branch": [
		head(
			"  - id: both\n    parallel:\n      one:\n        - id: c1\n          agent: coder\n      two:\n        - id: s2\n          agent: scout\n",
		) + sections("c1", "s2"),
		"copies-needed 6:9",
		"both",
	],
	"commit-in-copies": [
		head(
			"  - id: m\n    map: [a, b]\n    concurrency: 2\n    copies: true\n    do:\n      - id: msg\n        agent: committer\n      - id: save\n        commit: msg\n",
		) + sections("msg"),
		"commit-in-copies 13:13",
		"save",
	],
	"memory-outside-copies": [
		head(
			"  - id: m\n    map: [a, b]\n    concurrency: 2\n    copies: true\n    do:\n      - id: c\n        agent: coder\n        memory: flow\n",
		) + sections("c"),
		"memory-outside-copies 13:17",
		"flow",
	],
	"section-not-agent": [
		head("  - id: look\n    agent: scout\n  - id: tests\n    check: t.sh\n") + sections("look", "tests"),
		"section-not-agent 15:4",
		"tests",
	],
	"tools-widen": [
		head("  - id: look\n    agent: scout\n    tools: [read, write]\n") + sections("look"),
		"tools-widen 8:19",
		"write",
	],
	"unknown-skill": [
		head("  - id: look\n    agent: scout\n    skills: [nosuch]\n") + sections("look"),
		"unknown-skill 8:14",
		"nosuch",
	],
	// `review` belongs inside the loop it closes: dedented out, one fault at its id, not a cascade of reads.
	"node-indentation": [
		head(
			"  - id: fix\n    loop: review.output.approved\n    max: 2\n    do:\n      - id: code\n        agent: scout\n  - id: review\n    agent: reviewer\n    reads: [code]\n    output: { approved: boolean }\n",
		) + sections("code", "review"),
		"node-indentation 12:9",
		"review",
	],
};

describe("check-stage faults: one mistake, one fault, at the mistake", () => {
	for (const [name, [text, fault, covers]] of Object.entries(cases)) {
		it(name, () => {
			const faults = judge(text).faults;
			expect(faults.map(at)).toEqual([fault]);
			expect(covered(text, faults[0])).toBe(covers);
		});
	}

	it("a carry the builder refused is not reported again where the body reads it", () => {
		const text =
			head(
				"  - id: plan\n    agent: planner\n    output: { tasks: [{ text: string }] }\n  - id: l\n    loop: w.output.done\n    max: 2\n    carry: { first: plan.output.tasks }\n    do:\n      - id: w\n        agent: scout\n        reads: [l.carry]\n        output: { done: boolean }\n",
			) + sections("plan", "w");
		expect(judge(text).faults.map(at)).toEqual(["missing-key 12:5"]);
	});

	it("memory inside copies that opens inside them is fine, and so is a map run one at a time", () => {
		const inside =
			head(
				"  - id: m\n    map: [a, b]\n    concurrency: 2\n    copies: true\n    do:\n      - id: c\n        agent: coder\n        memory: m\n",
			) + sections("c");
		expect(judge(inside).faults).toEqual([]);
		const serial = head("  - id: m\n    map: [a, b]\n    do:\n      - id: c\n        agent: coder\n") + sections("c");
		expect(judge(serial).faults).toEqual([]);
	});

	it("a node's narrower tools make a writing agent a reader, so no copies are needed", () => {
		const text =
			head(
				"  - id: m\n    map: [a, b]\n    concurrency: 2\n    do:\n      - id: c\n        agent: coder\n        tools: [read]\n",
			) + sections("c");
		expect(judge(text).faults).toEqual([]);
	});

	it("memory-output-mismatch names the other node", () => {
		const f = judge(cases["memory-output-mismatch: the second node's output"][0]).faults[0];
		expect(f.related?.[0]).toMatchObject({ line: 6, column: 9 });
	});

	it("section-missing names a heading at another level, or underlined, that was meant as the section", () => {
		const text = `${head("  - id: plan\n    agent: planner\n  - id: act\n    agent: scout\n  - id: last\n    agent: scout\n")}\n## plan\nPlan.\n\n### act\nAct.\n\nlast\n====\nLast.\n\n\`\`\`\n# last\n\`\`\`\n`;
		const faults = judge(text).faults;
		expect(faults.map(at)).toEqual(["section-missing 8:9", "section-missing 10:9"]);
		const line = (needle: string) => text.split("\n").indexOf(needle) + 1;
		expect(faults[0].hint).toBe(
			`Line ${line("### act")} has \`### act\`, which is prose: a section's heading is \`## act\`.`,
		);
		expect(faults[0].related).toEqual([
			{ message: "`### act` is not a section", file: "t.md", line: line("### act"), column: 5 },
		]);
		expect(faults[1].hint).toBe(
			`Line ${line("last")} has \`last\` underlined with \`=\`, which is prose: a section's heading is \`## last\`.`,
		);
		// Only whole plain ids count, and a heading inside a fence is code.
		const plain = judge(`${head("  - id: plan\n    agent: planner\n")}\n# plan it well\n`).faults.find(
			(f) => f.code === "section-missing",
		);
		expect(plain?.hint).toBe("Add one saying what the turn is asked to do.");
		const fenced = judge(`${head("  - id: plan\n    agent: planner\n")}\n\`\`\`md\n# plan\n\`\`\`\n`).faults.find(
			(f) => f.code === "section-missing",
		);
		expect(fenced?.hint).toBe("Add one saying what the turn is asked to do.");
	});
});
