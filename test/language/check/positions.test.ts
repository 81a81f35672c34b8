/**
 * Every fault code the checker raises, with the line and column it points at. A case is a flow text and
 * the one fault it must produce: no cascades, so each mistake yields exactly one fault.
 */
import { describe, expect, it } from "vitest";
import { rosterOf } from "../../../src/agents/index.ts";
import { checkFlowText } from "../../../src/load/index.ts";
import { faultsAt, judge } from "../../helpers/flows.ts";

const head = (nodes: string, extra = "") =>
	`---\nname: t\ndescription: d\ninput: string\n${extra}nodes:\n${nodes}---\n`;
const ok = `${head("  - id: look\n    agent: scout\n    reads: [input]\n")}\n## look\nLook.\n`;

describe("a correct flow checks", () => {
	it("yields a CheckedFlow and no fault", () => {
		const r = judge(ok);
		expect(r.faults).toEqual([]);
		expect(r.value?.nodes.map((n) => n.id.value)).toEqual(["look"]);
	});
});

const cases: Record<string, [text: string, expected: string[]]> = {
	"yaml-syntax": ["---\nname: t\ndescription: [oops\ninput: string\n---\n", ["yaml-syntax 3:14"]],
	"not-a-flow": ["# just markdown\n", ["not-a-flow 1:1"]],
	"flow-too-large": [`${ok}\n${"Padding.\n".repeat(120_000)}`, ["flow-too-large 1:1"]],
	"missing-key": [
		"---\nname: t\ndescription: d\nnodes:\n  - id: look\n    agent: scout\n---\n\n## look\nx\n",
		["missing-key 2:1"],
	],
	"unknown-key": [`${head("  - id: look\n    agent: scout\n", "modle: a/b\n")}\n## look\nx\n`, ["unknown-key 5:1"]],
	"key-type": [`${head("  - id: look\n    agent: scout\n    reads: input\n")}\n## look\nx\n`, ["key-type 8:12"]],
	"name-mismatch": [ok.replace("name: t", "name: other"), ["name-mismatch 2:7"]],
	"node-kind": [head("  - id: look\n    reads: [input]\n"), ["node-kind 6:9"]],
	"invalid-id": [`${head("  - id: ask-next\n    agent: scout\n")}\n## ask-next\nx\n`, ["invalid-id 6:9"]],
	"reserved-id": [head("  - id: input\n    agent: scout\n"), ["reserved-id 6:9"]],
	"duplicate-id": [
		`${head("  - id: look\n    agent: scout\n  - id: look\n    agent: planner\n")}\n## look\nx\n`,
		["duplicate-id 8:9"],
	],
	"unknown-agent": [`${head("  - id: look\n    agent: scuot\n")}\n## look\nx\n`, ["unknown-agent 7:12"]],
	"unknown-address": [
		`${head("  - id: look\n    agent: scout\n    reads: [plan]\n")}\n## look\nx\n`,
		["unknown-address 8:13"],
	],
	"invalid-address": [
		`${head("  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n    reads: [a.output.x]\n")}\n## a\nx\n\n## b\ny\n`,
		["invalid-address 10:22"],
	],
	"section-missing": [head("  - id: look\n    agent: scout\n"), ["section-missing 6:9"]],
	"section-empty": [`${head("  - id: look\n    agent: scout\n")}\n## look\n\n`, ["section-empty 10:4"]],
	"section-duplicate": [
		`${head("  - id: look\n    agent: scout\n")}\n## look\nx\n\n## look\ny\n`,
		["section-duplicate 13:4"],
	],
	"section-unknown": [
		`${head("  - id: look\n    agent: scout\n")}\n## look\nx\n\n## lok\ny\n`,
		["section-unknown 13:4"],
	],
	"body-preamble": [`${head("  - id: look\n    agent: scout\n")}\nSome intro.\n\n## look\nx\n`, ["body-preamble 10:1"]],
};

describe("each fault code points at its line and column", () => {
	for (const [code, [text, expected]] of Object.entries(cases)) {
		it(code, () => {
			expect(faultsAt(text)).toEqual(expected);
		});
	}

	it("broken-agent names the file and its cause instead of calling the agent unknown", () => {
		const roster = rosterOf([
			{
				kind: "broken",
				name: "scout",
				file: "/p/.pi/agents/scout.md",
				source: "project",
				cause: "it lacks `description:`",
			},
		]);
		const r = checkFlowText(`${head("  - id: look\n    agent: scout\n")}\n## look\nx\n`, "t.md", roster);
		expect(r.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["broken-agent 7:12"]);
		expect(r.faults[0].message).toContain("lacks `description:`");
	});

	it("unknown-tool names the agent's tools a flow's subagent cannot have, at the node and at a swarm member", () => {
		const fetcher = {
			kind: "agent" as const,
			name: "fetcher",
			description: "d",
			tools: ["read", "fetch_url", "grepp"],
			prompt: "p",
			file: "/p/.pi/agents/fetcher.md",
			source: "project" as const,
		};
		const scout = { ...fetcher, name: "scout", tools: ["read", "grep", "ls", "subagent"] };
		const roster = rosterOf([fetcher, scout]);
		const r = checkFlowText(`${head("  - id: look\n    agent: fetcher\n")}\n## look\nx\n`, "t.md", roster);
		expect(r.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["unknown-tool 7:12"]);
		expect(r.faults[0].message).toContain("lists `fetch_url`, `grepp`, which a flow's subagent cannot have");
		const typo = rosterOf([{ ...fetcher, tools: ["grepp"] }]);
		expect(
			checkFlowText(`${head("  - id: look\n    agent: fetcher\n")}\n## look\nx\n`, "t.md", typo).faults[0],
		).toMatchObject({ expected: ["grep"], message: expect.stringContaining("Did you mean `grep`?") });
		const swarm = `${head("  - id: crowd\n    swarm: [{ agent: scout, count: 2 }, { agent: fetcher }]\n    rounds: 1\n")}\n## crowd\nAgree.\n`;
		expect(checkFlowText(swarm, "t.md", roster).faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual([
			"unknown-tool 7:50",
		]);
		expect(checkFlowText(`${head("  - id: look\n    agent: scout\n")}\n## look\nx\n`, "t.md", roster).faults).toEqual(
			[],
		);
	});
});

describe("faults carry what a person needs", () => {
	it("an unknown agent names the nearest agent", () => {
		const f = judge(`${head("  - id: look\n    agent: scuot\n")}\n## look\nx\n`).faults[0];
		expect(f.message).toContain("Did you mean `scout`?");
		expect(f.expected).toEqual(["scout"]);
		expect(f).toMatchObject({ path: "look.agent", endLine: 7, endColumn: 17 });
	});

	it("a duplicate id points back at the first", () => {
		const f = judge(`${head("  - id: look\n    agent: scout\n  - id: look\n    agent: planner\n")}\n## look\nx\n`)
			.faults[0];
		expect(f.related?.[0]).toMatchObject({ line: 6, column: 9, message: "first defined here" });
	});

	it("an unknown key suggests the nearest key", () => {
		const f = judge(`${head("  - id: look\n    agent: scout\n    raeds: [input]\n")}\n## look\nx\n`).faults[0];
		expect(f).toMatchObject({ code: "unknown-key", line: 8, column: 5, expected: ["reads"] });
	});

	it("a read of a later node says it has not ended yet", () => {
		const text = `${head("  - id: a\n    agent: scout\n    reads: [b]\n  - id: b\n    agent: scout\n")}\n## a\nx\n\n## b\ny\n`;
		expect(judge(text).faults[0].message).toContain("`b` has not ended before this point");
	});

	it("reports every mistake at once, in file order, without cascades", () => {
		const text = `${head("  - id: a\n    agent: nobody\n  - id: bad-id\n    agent: scout\n  - id: c\n    agent: scout\n    reads: [bad-id, zzz]\n")}\n## a\nx\n\n## c\ny\n`;
		expect(faultsAt(text)).toEqual([
			"unknown-agent 7:12",
			"invalid-id 8:9",
			"invalid-address 12:13",
			"unknown-address 12:21",
		]);
	});
});
