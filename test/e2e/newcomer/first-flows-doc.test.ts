/**
 * docs/first-flows.md, as a newcomer follows it: every file it shows, copied into a fresh project, checks;
 * its flow tests pass; the starter scripts it tells them to make pass; and the mistake it shows reads as
 * shown. The bar of issue 20: the two flows written, tested and run from the docs alone.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { cli, DOC_FILES } from "../../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	for (const [path, text] of DOC_FILES) project.write(path, text);
});
afterEach(() => project.cleanup());

const doc = readFileSync(join(PACKAGE_ROOT, "docs", "first-flows.md"), "utf8");

describe("docs/first-flows.md", () => {
	it("shows both flows and both tests", () => {
		expect([...DOC_FILES.keys()].sort()).toEqual([
			".pi/flows/review.md",
			".pi/flows/review.test.yaml",
			".pi/flows/triage.md",
			".pi/flows/triage.test.yaml",
		]);
	});

	it("its flows check, plan, and their tests pass", async () => {
		const checked = await cli(project, "check", "--project");
		expect(checked.code, checked.stdout).toBe(0);
		expect((await cli(project, "plan", "triage", "--project")).code).toBe(0);
		const tested = await cli(project, "test", "--project");
		expect(tested.stdout).toContain("✓ .pi/flows/triage.test.yaml · triage");
		expect(tested.stdout).toContain("✓ .pi/flows/review.test.yaml · review");
		expect(tested.code, tested.stdout).toBe(0);
	});

	it("the starter test it tells a newcomer to write passes", async () => {
		project.write(".pi/flows/triage.test.yaml", "");
		const made = await cli(project, "script", "triage", "--project", "--test", "--out", ".pi/flows/starter.test.yaml");
		expect(made.code, made.stderr).toBe(0);
		const tested = await cli(project, "test", ".pi/flows/starter.test.yaml", "--project");
		expect(tested.code, tested.stdout).toBe(0);
	});

	it("the failure it shows for `how: done` is what pi-flows test prints", async () => {
		project.write(
			".pi/flows/triage.test.yaml",
			(DOC_FILES.get(".pi/flows/triage.test.yaml") ?? "").replace("how: addressed", "how: done"),
		);
		const tested = await cli(project, "test", ".pi/flows/triage.test.yaml", "--project");
		const shown = /```text\n(✗ \.pi\/flows\/triage\.test\.yaml[\s\S]*?)```/.exec(doc)?.[1] ?? "";
		const flat = (t: string) => t.replace(/\s+/g, " ").trim();
		for (const line of shown.split(/\n(?= {2}\S)/))
			expect(flat(tested.stdout)).toContain(flat(line).replace(/ …$/, ""));
	});

	it("the YAML mistake it shows reads as shown", async () => {
		project.write(
			".pi/flows/review.md",
			(DOC_FILES.get(".pi/flows/review.md") ?? "").replace(
				"    reads: [input]\n    output",
				"      reads: [input]\n    output",
			),
		);
		const checked = await cli(project, "check", ".pi/flows/review.md");
		const shown = /```text\n(\.pi\/flows\/review\.md:8:7[\s\S]*?)```/.exec(doc)?.[1] ?? "";
		expect(shown).not.toBe("");
		expect(checked.stdout.replace(/\s+/g, " ").trim()).toBe(shown.replace(/\s+/g, " ").trim());
	});
});
