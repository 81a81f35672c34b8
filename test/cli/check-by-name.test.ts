/**
 * Issue 33, point 6: `pi-flows check` takes a flow's name as `list` and `plan` do (the real command), and
 * says which flow was meant when there is none by that name.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { cliChild } from "../helpers/kill.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeAll(() => {
	project = tempProject();
	project.write(".pi/flows/build.md", readFileSync(join(PACKAGE_ROOT, "test/fixtures/combo/build.md"), "utf8"));
});
afterAll(() => project.cleanup());

describe("check <name>", () => {
	it("checks the flow of that name", async () => {
		const out = await cliChild(project, ["check", "build", "--project"]);
		expect(out.stderr).toContain("1 flow file(s) checked, 0 with faults");
		expect(out.status).toBe(0);
	}, 30_000);

	it("says which flow was meant, exit 2, for a name that is none", async () => {
		const out = await cliChild(project, ["check", "buidl", "--project"]);
		expect(out.stderr).toMatch(/no flow named `buidl`\. Did you mean `build`\?/);
		expect(out.status).toBe(2);
	}, 30_000);
});
