/**
 * What the language has beyond combo's: per-node model, thinking and tools; compound durations; arithmetic
 * and string tests in conditions; named choice cases; budgets and handoff settings; swarms; and how many
 * branches a block must join. Each checks when written right and is refused, under its code, when not.
 */
import { describe, expect, it } from "vitest";
import type { AgentNode, ChoiceNode, MapNode, ParallelNode, SwarmNode } from "../../src/language/ast.ts";
import { typeToString } from "../../src/language/types/index.ts";
import { at, covered, head, judge } from "./helpers.ts";

const ok = (text: string) => {
	const r = judge(text);
	expect(r.faults).toEqual([]);
	return r.value as NonNullable<typeof r.value>;
};

describe("per-node model, thinking and tools", () => {
	const text = `${head("  - id: look\n    agent: scout\n    model: anthropic/claude-sonnet-4-5\n    thinking: high\n    tools: [read, grep]\n")}\n## look\nx\n`;

	it("are read onto the node", () => {
		const node = ok(text).nodes[0] as AgentNode;
		expect([node.model?.value, node.thinking?.value, node.tools?.map((t) => t.value)]).toEqual([
			"anthropic/claude-sonnet-4-5",
			"high",
			["read", "grep"],
		]);
	});

	it("a thinking level pi does not know is refused with the levels", () => {
		const r = judge(text.replace("thinking: high", "thinking: hihg"));
		expect(r.faults.map(at)).toEqual(["key-type 9:15"]);
		expect(r.faults[0].expected).toContain("high");
	});
});

describe("compound durations", () => {
	for (const [written, ms] of [
		["1h30m", 5_400_000],
		["2h15m30s", 8_130_000],
		["1d", 86_400_000],
		["500ms", 500],
		["90s", 90_000],
	] as const) {
		it(`${written} is ${ms} ms`, () => {
			const node = ok(`${head(`  - id: look\n    agent: scout\n    timeout: ${written}\n`)}\n## look\nx\n`)
				.nodes[0] as AgentNode;
			expect(node.timeout?.value).toBe(ms);
		});
	}

	it("a flow timeout is every turn's default, and bounds follow it", () => {
		const flow = ok(
			`${head("  - id: look\n    agent: scout\n    handoff: { continuations: 0 }\n", "timeout: 1h30m\n")}\n## look\nx\n`,
		);
		expect(flow.bound).toEqual({ turns: 1, ms: 5_400_000, waits: false, inFlight: 1 });
	});
});

describe("arithmetic and string tests in conditions", () => {
	const loop = (cond: string) =>
		`${head(`  - id: l\n    loop: ${cond}\n    max: 3\n    do:\n      - id: a\n        agent: scout\n        output: { failures: number, title: string, tags: [string] }\n`)}\n## a\nx\n`;

	it("numbers add, multiply and compare; strings test their start, end and contents", () => {
		ok(loop("a.output.failures * 2 + 1 > 10 || a.output.failures % 2 == 0"));
		ok(loop('a.output.title.startsWith("fix") && !a.output.title.endsWith("wip") && a.output.title.contains(":")'));
		ok(loop('a.output.tags.exists(t, t.startsWith("bug")) && size(a.output.title) < 72'));
	});

	it("`+` on a string is refused: strings do not concatenate in a condition", () => {
		const text = loop("a.output.title + 1 > 2");
		const r = judge(text);
		expect(r.faults.map(at)).toEqual(["condition-type 7:11"]);
		expect(covered(text, r.faults[0])).toBe("a.output.title");
	});
});

describe("named choice cases", () => {
	const gate = (test: string) =>
		`${head(
			`  - id: review\n    agent: reviewer\n    output: { status: approved | rejected }\n  - id: gate\n    choice:\n      - name: approved\n        when: review.output.status == "approved"\n        do:\n          - id: ship\n            agent: synthesiser\n    default: []\n  - id: after\n    loop: ${test}\n    max: 1\n    do:\n      - id: note\n        agent: scout\n`,
		)}\n## review\nx\n\n## ship\nx\n\n## note\nx\n`;

	it("a case's name is a value of `<choice>.output.case`, beside `default`", () => {
		const flow = ok(gate('gate.output.case == "approved" || gate.output.case == "default"'));
		expect((flow.nodes[1] as ChoiceNode).cases[0].name?.value).toBe("approved");
		expect(typeToString(flow.types.get("gate") as never)).toBe("{ case: approved | default, output?: text }");
	});

	it("an unknown case name is condition-enum-value, with the nearest", () => {
		const text = gate('gate.output.case == "aproved"');
		const r = judge(text);
		expect(r.faults.map(at)).toEqual(["condition-enum-value 18:31"]);
		expect(covered(text, r.faults[0])).toBe('"aproved"');
		expect(r.faults[0].expected).toEqual(["approved"]);
	});

	it("unnamed cases are numbered", () => {
		const flow = ok(
			gate('gate.output.case == "approved"')
				.replace("      - name: approved\n        when", "      - when")
				.replace('gate.output.case == "approved"', 'gate.output.case == "1"'),
		);
		expect(typeToString(flow.types.get("gate") as never)).toContain("case: 1 | default");
	});
});

describe("budget and handoff", () => {
	const text = `${head("  - id: look\n    agent: scout\n    handoff: { watermark: 0.7, continuations: 1 }\n", "budget: { tokens: 200000, cost: 5, turns: 40 }\nhandoff: { watermark: 0.8, continuations: 3 }\n")}\n## look\nx\n`;

	it("are read, and a node's continuations bound its turns", () => {
		const flow = ok(text);
		expect([flow.budget?.tokens?.value, flow.budget?.cost?.value, flow.budget?.turns?.value]).toEqual([200000, 5, 40]);
		expect([flow.handoff?.watermark?.value, flow.handoff?.continuations?.value]).toEqual([0.8, 3]);
		expect(flow.bound.turns).toBe(2);
	});

	it("an unknown budget key and a watermark above 1 are refused where written", () => {
		const r = judge(text.replace("turns: 40", "turnz: 40").replace("watermark: 0.7", "watermark: 1.5"));
		expect(
			r.faults.map(
				(f) =>
					`${at(f)} ${covered(text.replace("turns: 40", "turnz: 40").replace("watermark: 0.7", "watermark: 1.5"), f)}`,
			),
		).toEqual(["unknown-key 5:36 turnz", "key-type 10:27 1.5"]);
	});

	it("a later node reads an agent's handoff document", () => {
		ok(
			`${head('  - id: look\n    agent: scout\n  - id: more\n    loop: look.handoff.status == "done"\n    max: 1\n    do:\n      - id: again\n        agent: scout\n        reads: [look.handoff.summary]\n')}\n## look\nx\n\n## again\ny\n`,
		);
	});
});

describe("swarm", () => {
	const swarm = (extra = "") =>
		`${head(`  - id: plan\n    agent: planner\n    output: { keys: [string] }\n  - id: crowd\n    swarm: [scout, { agent: reviewer, count: 2 }]\n    rounds: 3\n    claims-from: plan.output.keys\n    until: crowd.output.converged\n    reads: [input]\n${extra}`)}\n## plan\nx\n\n## crowd\nAgree on the answer.\n`;

	it("members, rounds, claims and its own `until` check; its bound is rounds × members", () => {
		const flow = ok(swarm());
		const node = flow.nodes[1] as SwarmNode;
		expect(node.members.map((m) => [m.agent.value, m.count])).toEqual([
			["scout", 1],
			["reviewer", 2],
		]);
		expect(flow.bounds.get("crowd")?.turns).toBe(9);
	});

	it("needs a section (its goal) and `rounds`, and its members must exist", () => {
		expect(judge(swarm().replace("\n## crowd\nAgree on the answer.\n", "")).faults.map((f) => f.code)).toEqual([
			"section-missing",
		]);
		expect(judge(swarm().replace("    rounds: 3\n", "")).faults.map((f) => f.code)).toEqual(["missing-key"]);
		expect(judge(swarm().replace("agent: reviewer", "agent: reveiwer")).faults.map((f) => f.code)).toEqual([
			"unknown-agent",
		]);
	});

	it("claims are a list of strings", () => {
		const r = judge(swarm().replace("output: { keys: [string] }", "output: { keys: number }"));
		expect(r.faults.map((f) => f.code)).toEqual(["key-type"]);
	});
});

describe("join", () => {
	const both = (join: string) =>
		`${head(`  - id: both\n    parallel:\n      one:\n        - id: a\n          agent: scout\n      two:\n        - id: b\n          agent: reviewer\n    join: ${join}\n  - id: each\n    map: [x, y, z]\n    join: 2\n    do:\n      - id: c\n        agent: scout\n`)}\n## a\nx\n\n## b\nx\n\n## c\nx\n`;

	it("`all`, `any` or a count", () => {
		const flow = ok(both("any"));
		expect((flow.nodes[0] as ParallelNode).join?.value).toEqual({ kind: "any" });
		expect((flow.nodes[1] as MapNode).join?.value).toEqual({ kind: "quorum", count: 2 });
		ok(both("all"));
	});

	it("anything else is refused where written", () => {
		const text = both("most");
		const r = judge(text);
		expect(r.faults.map(at)).toEqual(["key-type 14:11"]);
		expect(covered(text, r.faults[0])).toBe("most");
	});
});
