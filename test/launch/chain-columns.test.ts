/**
 * Issue 15: the CLI and the extension judge a typed chain through one preparation (src/launch), and every
 * fault lands on the exact column of the chain as the person typed it, whatever quoting the chain holds and
 * whatever the chain-to-flow translation had to do with it. Columns count UTF-16 units, as everywhere.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareChain } from "../../src/extension/launch/prepare.ts";
import { NOBODY } from "../../src/engine/index.ts";
import { chainAsFlow, judgeChain } from "../../src/launch/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { cli } from "../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const UNKNOWN = "unknown-agent: no agent `scuot`. Did you mean `scout`?";

/** Each chain, and where `@scuot` (an unknown agent) stands in it: line, column. */
const CASES: [string, string, number, number][] = [
	["a single quote (the issue's case)", `"don't look" -> @scuot`, 1, 17],
	["no quoting at all", "@scout -> @scuot", 1, 11],
	["escaped double quotes inside a goal", `"say \\"hi\\" twice" -> @scuot`, 1, 23],
	["backslashes", `"C:\\\\temp\\\\" -> @scuot`, 1, 17],
	["a single-quoted goal holding a double quote", `'it"s' -> @scuot`, 1, 11],
	["unicode before the error (é one unit, 👍 two)", `"café 👍 ok" -> @scuot`, 1, 17],
	["both quotes and a backslash", `"it's \\"x\\" \\\\" -> @scout -> @scuot`, 1, 30],
	["a tab", "@scout\t-> @scuot", 1, 11],
	["a chain typed over lines", `"don't\nlook" ->\n  @scuot`, 3, 3],
];

describe("a typed chain's faults, on the chain as typed", () => {
	it.each(CASES)("%s: the shared judgement", (_, chain, line, column) => {
		// The cases' columns are written out above; this guards against a typo in them.
		if (line === 1) expect(chain.indexOf("@scuot") + 1).toBe(column);
		const judged = judgeChain(chain, {
			cwd: project.cwd,
			scope: {},
			env: project.env,
			description: "a test",
			file: "chain.md",
		});
		expect(judged.ok).toBe(false);
		if (judged.ok) return;
		expect(judged.stage).toBe("check");
		expect(judged.faults.map((f) => [f.file, f.code, f.line, f.column, f.endLine, f.endColumn])).toEqual([
			["chain", "unknown-agent", line, column, line, column + "@scuot".length],
		]);
	});

	it.each(CASES)("%s: `pi-flows chain` puts the caret there", async (_, chain, line, column) => {
		const r = await cli(project, "chain", chain, "--script", "s.yaml");
		expect(r.code).toBe(2);
		const lines = r.stderr.split("\n");
		// Above the caret: the chain, or the line of it the fault is on.
		expect(lines[0]).toBe(`  ${chain.split("\n")[line - 1]}`);
		expect(lines[1]).toBe(`  ${" ".repeat(column - 1)}^^^^^^ ${UNKNOWN}`);
		expect(lines[2]).toBe("pi-flows: the chain does not check; nothing was run");
	});

	it.each(CASES)(
		"%s: the extension (`/run --chain`, the subagent tool) says chain:line:col",
		async (_, chain, line, column) => {
			const ctx = { cwd: project.cwd, model: undefined, modelRegistry: undefined as never };
			const prepared = await prepareChain(chain, { input: "go" }, ctx, {}, NOBODY);
			expect(prepared.ok).toBe(false);
			if (prepared.ok) return;
			expect(prepared.lines).toEqual([
				`chain:${line}:${column}: ${UNKNOWN}`,
				"the chain does not check; nothing was run.",
			]);
		},
	);

	it("a syntax fault after a quote is at its column too, on both surfaces", async () => {
		const chain = `"it's" -> @scout --thinking hgih`;
		const ctx = { cwd: project.cwd, model: undefined, modelRegistry: undefined as never };
		const prepared = await prepareChain(chain, { input: "go" }, ctx, {}, NOBODY);
		expect(prepared.ok ? [] : prepared.lines[0]).toMatch(/^chain:1:29: chain-flag-value: /);
		const r = await cli(project, "chain", chain);
		expect(r.stderr.split("\n")[1]).toMatch(/^ {30}\^\^\^\^ chain-flag-value: /);
	});
});

describe("the chain-to-flow translation's map", () => {
	it("records where every unit of the chain landed, and the flow holds the chain unchanged", () => {
		for (const [, chain] of CASES) {
			const flow = chainAsFlow(chain, "a test");
			expect(flow.at).toHaveLength(chain.length + 1);
			const written = chain.replace(/\r?\n/g, " ");
			const line = flow.text.split("\n").find((l) => l.startsWith("  "));
			expect(line).toBe(`  ${written}`);
			for (let i = 0; i < chain.length; i++) if (chain[i] !== "\n") expect(flow.text[flow.at[i]]).toBe(chain[i]);
		}
	});
});
