/**
 * Issue 33, point 7: the smaller things a newcomer met. Templates fill a step's `args` as they fill its
 * `say` (a real pi session on the scripted model, its tools executing); a run with no model anywhere says
 * "no model" once, naming every node, not once per node (the real command).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliChild } from "../../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf, runInline } from "../../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("the scripted model", () => {
	it("fills templates in args: a write of {{result}} writes what the read returned", async () => {
		project.write(".pi/agents/copier.md", agentFile("copier", "read, write"));
		project.write("notes.md", "the notes\n");
		const flow = flowOf("copy", "  - id: copy\n    agent: copier\n", { copy: "Copy the notes." });
		const script = [
			"turns:",
			"  copy:",
			"    - call: read",
			"      args: { path: notes.md }",
			"    - call: write",
			'      args: { path: copy.md, content: "copied: {{result}}" }',
			"    - say: done",
			"",
		].join("\n");
		const ran = await runInline(project, "copy", flow, script);
		expect(ran.result.ok, ran.result.error).toBe(true);
		expect(readFileSync(join(project.cwd, "copy.md"), "utf8")).toBe("copied: the notes\n");
	}, 60_000);
});

describe("a run with no model anywhere", () => {
	it("says no model once, naming each node", async () => {
		const out = await cliChild(project, ["run", "explore", "what is this?"]);
		expect(out.status).toBe(2);
		const lines = out.stderr.split("\n").filter((l) => l.includes("no model"));
		expect(lines).toEqual([expect.stringMatching(/^pi-flows: look\S*, answer\S*: no model: none given with --model/)]);
	}, 60_000);
});

describe("condition-type", () => {
	it("says the fix with every fault, not only what is wrong", async () => {
		const { checkFlowText, catalogueOptions } = await import("../../../src/load/index.ts");
		const { loadRoster } = await import("../../../src/agents/index.ts");
		const scope = { project: true };
		const bad = [
			'plan.output.count == "many"', // mismatched operands
			"plan.output.count", // not a boolean
			"plan.output.files.all(f, f)", // a body that is not a boolean
			'plan.output.count.all(f, f == "x")', // a macro on a number
			"plan.output.files.size.x", // a field of a non-object
			'[1, "a"] == plan.output.files', // a list of two types
		];
		for (const condition of bad) {
			const text = flowOf(
				"cond",
				`  - id: plan\n    agent: planner\n    output: { count: number, files: [string] }\n  - id: gate\n    loop: '${condition}'\n    max: 2\n    do:\n      - id: work\n        agent: scout\n`,
				{ plan: "Plan.", work: "Work." },
			);
			const faults = checkFlowText(
				text,
				join(project.cwd, ".pi/flows/cond.md"),
				loadRoster(project.cwd, scope, project.env),
				catalogueOptions(project.cwd, scope, project.env),
			).faults.filter((f) => f.code === "condition-type");
			expect(faults.length, condition).toBeGreaterThan(0);
			for (const f of faults) expect(f.hint ?? "", `${condition}: ${f.message}`).toMatch(/\S/);
		}
	});
});

describe("a flow test's expect.outputs", () => {
	const FLOW = flowOf(
		"ship",
		"  - id: plan\n    agent: planner\n    output: { files: [string], risk: number }\n  - id: message\n    agent: scout\n  - id: commit\n    commit: message\n",
		{ plan: "Plan.", message: "Say." },
	);
	const test = (outputs: string) =>
		`input: go\nscript:\n  turns:\n    plan:\n      - call: submit\n        args: { files: [a.ts], risk: 2 }\n    message:\n      - say: Ship it\nexpect:\n  ok: true\n  outputs:\n${outputs}`;

	it("takes { partial: ... } (only the fields given), and the commit's documented value", async () => {
		project.write(".pi/flows/ship.md", FLOW);
		project.write(
			".pi/flows/ship.test.yaml",
			test('    plan: { partial: { risk: 2 } }\n    commit: { committed: false, branch: "pi-flows/dry-run" }\n'),
		);
		const out = await cliChild(project, ["test", ".pi/flows/ship.test.yaml", "--project"]);
		expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
	}, 60_000);

	it("fails a partial whose given field differs, naming the value", async () => {
		project.write(".pi/flows/ship.md", FLOW);
		project.write(".pi/flows/ship.test.yaml", test("    plan: { partial: { risk: 3 } }\n"));
		const out = await cliChild(project, ["test", ".pi/flows/ship.test.yaml", "--project"]);
		expect(out.status).toBe(1);
		expect(`${out.stdout}${out.stderr}`).toContain('`plan` was {"files":["a.ts"],"risk":2}');
	}, 60_000);
});

describe("pi's find, offline", () => {
	it("works for the shipped scout without fd: a pattern without / matches names at any depth", async () => {
		project.write("docs/deep/guide.md", "# Guide\n");
		project.write("node_modules/x/skip.md", "# no\n");
		const flow = flowOf("look", "  - id: look\n    agent: scout\n", { look: "Find the guides." });
		const script = [
			"turns:",
			"  look:",
			"    - call: find",
			'      args: { pattern: "*.md" }',
			'    - say: "found: {{result}}"',
			"",
		].join("\n");
		const ran = await runInline(project, "look", flow, script);
		expect(ran.result.ok, ran.result.error).toBe(true);
		expect(String(ran.result.output)).toContain("docs/deep/guide.md");
		expect(String(ran.result.output)).not.toContain("skip.md");
		expect(String(ran.result.output)).not.toMatch(/fd is not available/);
	}, 60_000);
});

describe("a node dedented out of its loop", () => {
	it("gives one fault, and it says indentation", async () => {
		const { TRIAGE } = await import("../../helpers/newcomer.ts");
		const { checkFlowText, catalogueOptions } = await import("../../../src/load/index.ts");
		const { loadRoster } = await import("../../../src/agents/index.ts");
		const from =
			"              - id: review\n                agent: reviewer\n                verdict: fix\n                reads: [input, code]\n";
		expect(TRIAGE).toContain(from);
		const text = TRIAGE.replace(from, from.replace(/^ {4}/gm, ""));
		const scope = { project: true };
		const { faults } = checkFlowText(
			text,
			join(project.cwd, ".pi/flows/triage.md"),
			loadRoster(project.cwd, scope, project.env),
			catalogueOptions(project.cwd, scope, project.env),
		);
		expect(faults.map((f) => f.code)).toEqual(["node-indentation"]);
		expect(faults[0].message).toContain("indentation");
		expect(faults[0]).toMatchObject({ path: "route/review" });
	});
});
