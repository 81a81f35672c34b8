/**
 * docs/faults.md is generated from the catalogue: this fails when the page differs from what
 * `faultsMarkdown()` prints, and says how to regenerate it. Every example on the page raises its code, and
 * every code the reader and checker raise has a test pinning its line and column.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT, rosterOf } from "../../src/agents/index.ts";
import { parseChain } from "../../src/chain/index.ts";
import { FAULT_CATALOGUE, FAULT_CODES, type FaultCode } from "../../src/faults/index.ts";
import { faultsMarkdown } from "../../src/faults/docs.ts";
import { exampleText, FAULT_EXAMPLES } from "../../src/faults/examples.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { checkScriptKeys, readScript } from "../../src/script/index.ts";
import { flowFolder, judge } from "../language/helpers.ts";

describe("docs/faults.md", () => {
	it("is what faultsMarkdown() prints", () => {
		const page = readFileSync(join(PACKAGE_ROOT, "docs", "faults.md"), "utf8");
		expect(
			page === faultsMarkdown(),
			"docs/faults.md is stale: run `node scripts/faults-doc.ts` (npm run docs:faults) and commit the page",
		).toBe(true);
	});

	it("has a heading for every code", () => {
		const page = faultsMarkdown();
		for (const code of FAULT_CODES) expect(page).toContain(`### \`${code}\``);
	});
});

/** The codes an example raises, judged the way its kind says. */
function raised(code: FaultCode): string[] {
	const e = FAULT_EXAMPLES[code];
	if (!e) return [];
	const text = exampleText(e);
	if (e.kind === "chain") return parseChain(text, { file: "chain.txt" }).faults.map((f) => f.code);
	if (e.kind === "script") {
		const read = readScript(text, "s.yaml");
		return (read.value ? checkScriptKeys(read.value, ["look", "answer"]) : read.faults).map((f) => f.code);
	}
	const callee = (input: string, nodes: string) =>
		`---\nname: callee\ndescription: d\ninput: ${input}\nnodes:\n${nodes}---\n\n## s\nx\n`;
	switch (code) {
		case "broken-agent": {
			const roster = rosterOf([
				{
					kind: "broken",
					name: "scout",
					file: "/p/.pi/agents/scout.md",
					source: "project",
					cause: "it lacks `description:`",
				},
			]);
			return checkFlowText(text, "t.md", roster).faults.map((f) => f.code);
		}
		case "unknown-tool": {
			const roster = rosterOf([
				{
					kind: "agent",
					name: "fetcher",
					description: "d",
					tools: ["read", "fetch_url"],
					prompt: "p",
					file: "/p/.pi/agents/fetcher.md",
					source: "project",
				},
			]);
			return checkFlowText(text, "t.md", roster).faults.map((f) => f.code);
		}
		case "skill-hidden": {
			const skill = { name: "archive", file: "/p/.pi/skills/archive/SKILL.md", dir: "/p/.pi/skills/archive" };
			const roster = rosterOf([
				{
					kind: "agent",
					name: "archivist",
					description: "d",
					tools: ["read"],
					skills: [
						{ name: "archive", line: 4, column: 9, skill: { ...skill, description: "d", hidden: true, text: "x" } },
					],
					prompt: "p",
					file: "/p/.pi/agents/archivist.md",
					source: "project",
				},
			]);
			return checkFlowText(text, "t.md", roster).faults.map((f) => f.code);
		}
		case "broken-flow":
			return flowFolder({
				t: text,
				interview: callee("string", "  - id: s\n    agent: nobody\n").replace("name: callee", "name: interview"),
			})
				.judgeOne("t")
				.faults.map((f) => f.code);
		case "flow-input-mismatch":
			return flowFolder({
				t: text,
				typed: callee("{ goal: string }", "  - id: s\n    agent: scout\n").replace("name: callee", "name: typed"),
			})
				.judgeOne("t")
				.faults.map((f) => f.code);
		case "call-cycle":
			return flowFolder({ t: text })
				.judgeOne("t")
				.faults.map((f) => f.code);
		case "reserved-name":
			return judge(text, "resume").faults.map((f) => f.code);
		default:
			return judge(text).faults.map((f) => f.code);
	}
}

describe("every example raises its code", () => {
	for (const code of Object.keys(FAULT_EXAMPLES) as FaultCode[]) {
		it(code, () => {
			expect(raised(code)).toContain(code);
		});
	}
});

describe("every code of the reader and the checker is pinned to a line and column by a test", () => {
	const root = join(PACKAGE_ROOT, "test");
	const tests = readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((f) => f.endsWith(".test.ts") && !f.startsWith("fixtures"))
		.map((f) => readFileSync(join(root, f), "utf8"));
	const text = tests.join("\n");
	for (const code of FAULT_CODES.filter((c) => ["read", "check"].includes(FAULT_CATALOGUE[c].stage))) {
		it(code, () => {
			expect(text).toMatch(new RegExp(`["\`]${code} \\d+:\\d+`));
		});
	}
});
