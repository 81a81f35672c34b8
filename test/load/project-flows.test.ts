/**
 * Issue 20, point 6: every command finds project flows the same way (only with `--project`), says so
 * and how where a project flow was not read, and `check`, `list` and `test` name what they skipped.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { cli, REVIEW, TRIAGE } from "../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write(".pi/flows/triage.md", TRIAGE);
	project.write(".pi/flows/review.md", REVIEW);
	project.write(
		".pi/flows/review.test.yaml",
		"input: go\nscript:\n  turns:\n    plan:\n      - call: submit\n        args: { files: [a.js] }\n    look:\n      - say: ok\n    sum:\n      - say: done\nexpect:\n  ok: true\n  output: done\n",
	);
});
afterEach(() => project.cleanup());

const TRUST =
	"project flows are repository content, read only when trusted: add `--project` on the command line, or trust the project in pi";

describe("a project flow by name", () => {
	it("is found with --project by run, plan and graph alike", async () => {
		for (const command of [
			["plan", "triage"],
			["graph", "triage"],
			["run", "triage", "x", "--dry-run"],
		]) {
			const r = await cli(project, ...command, "--project");
			expect(r.code, `${command.join(" ")}: ${r.stderr}`).toBe(0);
		}
	});

	it("is named as unread, with how to trust it, by run, plan and graph alike", async () => {
		for (const command of [
			["plan", "triage"],
			["graph", "triage"],
			["run", "triage", "x"],
		]) {
			const r = await cli(project, ...command);
			expect(r.code).toBe(2);
			expect(r.stderr).toBe(`pi-flows: \`triage\` is a project flow (.pi/flows/triage.md) and was not read: ${TRUST}.`);
		}
	});
});

describe("a project agent by name", () => {
	it("is named as unread, with how to trust it, by drive", async () => {
		project.write(".pi/agents/helper.md", "---\nname: helper\ndescription: h\ntools: read\n---\nHelp.\n");
		project.write("TASK.md", "# Task\n");
		const r = await cli(project, "drive", "TASK.md", "--agent", "helper");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(
			"it is a project agent (.pi/agents/helper.md) and was not read; project agents are repository content, read only when trusted: add `--project`",
		);
	});
});

describe("commands over every flow", () => {
	it("check with no path checks every flow it sees and names the project flows it skipped", async () => {
		const r = await cli(project, "check");
		expect(r.code).toBe(0);
		expect(r.stderr).toContain(`skipped 2 project flows in .pi/flows (review, triage): ${TRUST}`);
		const all = await cli(project, "check", "--project", "--json");
		const files = (JSON.parse(all.stdout) as { file: string }[]).map((f) => f.file);
		expect(files).toContain(".pi/flows/triage.md");
		expect(files).toContain(".pi/flows/review.md");
		expect(all.stderr).not.toContain("skipped");
	});

	it("list takes --project like every other command, and says what it skipped without it", async () => {
		const plain = await cli(project, "list");
		expect(plain.code).toBe(0);
		expect(plain.stdout).not.toContain("triage");
		expect(plain.stderr).toContain("skipped 2 project flows in .pi/flows (review, triage)");
		const all = await cli(project, "list", "--project");
		expect(all.code).toBe(0);
		expect(all.stdout).toMatch(/triage\s+project\s+checks/);
	});

	it("test takes --project like every other command, and says what it skipped without it", async () => {
		const plain = await cli(project, "test");
		expect(plain.stdout).not.toContain("review.test.yaml");
		expect(plain.stderr).toContain("skipped 2 project flows in .pi/flows (review, triage)");
		const all = await cli(project, "test", "--project");
		expect(all.stdout).toContain("✓ .pi/flows/review.test.yaml · review");
	});
});
