/**
 * Issue 33, point 7: the smaller things a newcomer met. Templates fill a step's `args` as they fill its
 * `say` (a real pi session on the scripted model, its tools executing); a run with no model anywhere says
 * "no model" once, naming every node, not once per node (the real command).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliChild } from "../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

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
