/**
 * Issue 33, point 3: a dry run has no model, so a rule only a model's turn can meet (combo's `mustCallTool`,
 * a typed turn answering through `submit`) is skipped and said to be, never failed. combo's `build` and
 * `build-attended` (test/fixtures/combo/) with combo's auditor as it ships (`mustCallTool: true`) dry-run
 * clean through the real `pi-flows` command.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { cliChild } from "../helpers/kill.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

/** combo's auditor as it ships (AI-for-dev/combo agents/auditor.md), body shortened. */
const COMBO_AUDITOR =
	"---\nname: auditor\ndescription: Reads the finished work as a whole\ntools: read, grep, find, ls\nlifetime: task\nmustCallTool: true\n---\n\nYou audit finished work.\n";

let project: TempProject;
beforeAll(() => {
	project = tempProject();
	const corpus = join(PACKAGE_ROOT, "test/fixtures/combo");
	for (const f of readdirSync(corpus).filter((f) => f.endsWith(".md")))
		project.write(`.pi/flows/${f}`, readFileSync(join(corpus, f), "utf8"));
	project.write(".pi/agents/auditor.md", COMBO_AUDITOR);
});
afterAll(() => project.cleanup());

describe("a dry run of combo's flows", () => {
	for (const name of ["build", "build-attended"]) {
		it(`${name} dry-runs clean and names the mustCallTool it skipped`, async () => {
			const out = await cliChild(project, ["run", name, "add a guard", "--dry-run", "--project"]);
			expect(out.stderr, out.stdout).toMatch(new RegExp(`✓ ${name} \\(dry run\\)`));
			expect(out.status).toBe(0);
			expect(out.stdout).toMatch(
				/skipped \(a dry run has no model\): \S*audit: `auditor` must call a tool \(mustCallTool\)/,
			);
			expect(out.stdout).not.toMatch(/✗/);
		}, 60_000);
	}

	it("a scripted text answer for a typed node stands in a sample and says so, in --json too", async () => {
		project.write(
			".pi/flows/typed.md",
			"---\nname: typed\ndescription: a typed scout\ninput: string\nnodes:\n  - id: look\n    agent: scout\n    output: { files: [string] }\n---\n\n## look\n\nList the files.\n",
		);
		const script = project.write("typed.script.yaml", "turns:\n  look:\n    - say: here are the files\n");
		const out = await cliChild(project, ["run", "typed", "go", "--dry-run", "--project", "--script", script, "--json"]);
		expect(out.status, out.stderr).toBe(0);
		const result = JSON.parse(out.stdout) as { ok: boolean; skipped: string[]; visits: { output: unknown }[] };
		expect(result.ok).toBe(true);
		expect(result.visits[0].output).toMatchObject({ files: expect.any(Array) });
		expect(result.skipped).toEqual([
			expect.stringMatching(/^look: the script answers in text where a model must call `submit`/),
		]);
	}, 60_000);
});
