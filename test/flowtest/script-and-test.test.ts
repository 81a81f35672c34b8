/**
 * Issue 20, point 3: `pi-flows script <flow>` writes a starter script whose answers every node accepts (a
 * run and `pi-flows test` pass on it, for the flows and every shipped flow), and `pi-flows test`
 * says which step of which script entry failed and why.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { cli, REVIEW, TRIAGE } from "../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write(".pi/flows/triage.md", TRIAGE);
	project.write(".pi/flows/review.md", REVIEW);
});
afterEach(() => project.cleanup());

describe("pi-flows script", () => {
	it("writes one entry per agent node with an accepted answer each, and a run on it succeeds", async () => {
		const made = await cli(project, "script", "triage", "--project", "--out", "triage.script.yaml");
		expect(made.code).toBe(0);
		const text = readFileSync(join(project.cwd, "triage.script.yaml"), "utf8");
		for (const key of ["scout:", "code:", "review:", "note:"]) expect(text).toContain(`\n  ${key}`);
		expect(text).toContain("- call: submit\n      args: { severity: high, files: [ sample ] }");
		expect(text).toContain("- call: verdict\n      args: { approved: true }");
		const ran = await cli(project, "run", "triage", "the sum is off", "--project", "--script", "triage.script.yaml");
		expect(ran.code, ran.stderr).toBe(0);
	});

	it("wraps a list output in { value: [...] }", async () => {
		project.write(
			".pi/flows/files.md",
			REVIEW.replace("name: review", "name: files")
				.replace("output: { files: [string] }", "output: [string]")
				.replace("plan.output.files", "plan.output"),
		);
		const made = await cli(project, "script", "files", "--project");
		expect(made.stdout).toContain(
			"plan:  # submit a [string] (at most 5), wrapped as { value: ... }\n    - call: submit\n      args: { value: [ sample ] }",
		);
		project.write("s.yaml", made.stdout);
		expect((await cli(project, "run", "files", "go", "--project", "--script", "s.yaml")).code).toBe(0);
	});

	it("writes a whole flow test that passes, for the issue's flows and every shipped flow", async () => {
		const flows = [
			"triage",
			"review",
			"build",
			"build-attended",
			"explore",
			"interview",
			"review-loop",
			"split",
			"swarm-survey",
		];
		for (const name of flows) {
			const made = await cli(
				project,
				"script",
				name,
				"--project",
				"--test",
				"--out",
				`t/${name}.test.yaml`.replace("t/", ""),
			);
			expect(made.code, made.stderr).toBe(0);
		}
		const ran = await cli(project, "test", ...flows.map((n) => `${n}.test.yaml`), "--project");
		expect(ran.stdout).toContain(`${flows.length} passed, 0 failed`);
	});

	it("never writes over an existing file", async () => {
		project.write("mine.yaml", "turns: {}\n");
		const r = await cli(project, "script", "review", "--project", "--out", "mine.yaml");
		expect(r.code).toBe(2);
		expect(readFileSync(join(project.cwd, "mine.yaml"), "utf8")).toBe("turns: {}\n");
	});
});

describe("pi-flows test names the step", () => {
	it("says which step of which entry was refused, and the tool's words", async () => {
		project.write(
			".pi/flows/triage.test.yaml",
			"input: x\nscript:\n  turns:\n    scout:\n      - call: submit\n        args: { severity: high, files: [a] }\n    code:\n      - say: fixed\n    review:\n      - call: verdict\n        args: { approved: true, resolved: [{ id: o1, how: done }] }\nexpect:\n  ok: true\n",
		);
		const r = await cli(project, "test", ".pi/flows/triage.test.yaml", "--project");
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(
			'the `verdict` tool refused its arguments: resolved.0.how: expected one of ["addressed","withdrawn"]',
		);
		expect(r.stdout).toContain(
			"at script entry `review` (visit route/fix#1/review), step 1 (`call: verdict`): the tool refused its `args`",
		);
	});

	it("says when an entry's steps ran out before the turn ended", async () => {
		project.write(
			".pi/flows/review.test.yaml",
			"input: x\nscript:\n  turns:\n    plan:\n      - call: read\n        args: { path: nothing.md }\n    look:\n      - say: ok\n    sum:\n      - say: ok\nexpect:\n  ok: true\n",
		);
		const r = await cli(project, "test", ".pi/flows/review.test.yaml", "--project");
		expect(r.stdout).toContain("at script entry `plan`: its 1 step(s) ran out before the turn ended");
	});
});
