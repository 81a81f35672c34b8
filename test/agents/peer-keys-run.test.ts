/**
 * Issue 17, point 1 at run time, on real pi sessions with the scripted model: combo's `lifetime: workflow`
 * keeps a node's subagent across its visits (each map branch its own), and `mustCallTool` fails a turn that
 * used no tool, retried under the node's `retry:`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const agent = (name: string, extra: string) =>
	`---\nname: ${name}\ndescription: ${name} for tests\ntools: read\n${extra}---\nYou are ${name}.\n`;

const LOOP = flowOf(
	"pair",
	`  - id: pair
    loop: review.output.approved
    max: 3
    do:
      - id: code
        agent: maker
      - id: review
        agent: reviewer
        output: { approved: boolean }
`,
	{ code: "Code.", review: "Review." },
);
const SCRIPT = `turns:\n  code:\n    - say: done\n  "pair#1/review":\n    - call: submit\n      args: { approved: false }\n  "pair#2/review":\n    - call: submit\n      args: { approved: true }\n`;

describe("combo's lifetime", () => {
	it("`workflow` keeps the node's subagent across the loop's iterations; `task` starts a fresh one each visit", async () => {
		project.write(".pi/agents/maker.md", agent("maker", "lifetime: workflow\n"));
		const kept = await runInline(project, "pair", LOOP, SCRIPT);
		expect(kept.result.ok).toBe(true);
		// One maker for both iterations, one reviewer per iteration.
		expect(kept.spawns).toBe(3);
		expect(kept.open).toBe(0);
		project.write(".pi/agents/maker.md", agent("maker", "lifetime: task\n"));
		const fresh = await runInline(project, "pair", LOOP, SCRIPT);
		expect(fresh.spawns).toBe(4);
	});

	it("gives each map branch its own subagent", async () => {
		project.write(".pi/agents/maker.md", agent("maker", "lifetime: workflow\n"));
		const flow = flowOf(
			"each",
			"  - id: each\n    map: [a, b]\n    do:\n      - id: code\n        agent: maker\n        reads: [item]\n",
			{ code: "Code." },
		);
		const ran = await runInline(project, "each", flow, "turns:\n  code:\n    - say: done\n");
		expect(ran.result.ok).toBe(true);
		expect(ran.spawns).toBe(2);
		expect(ran.open).toBe(0);
	});
});

describe("combo's mustCallTool", () => {
	const flow = flowOf("audit", "  - id: audit\n    agent: auditor2\n    retry: 1\n", { audit: "Audit." });
	it("fails a turn that called no tool and retries it; a turn that read something passes", async () => {
		project.write(".pi/agents/auditor2.md", agent("auditor2", "mustCallTool: true\n"));
		project.write("notes.md", "all good\n");
		const ran = await runInline(
			project,
			"audit",
			flow,
			`turns:\n  audit:\n    - say: APPROVED\n    - call: read\n      args: { path: notes.md }\n    - say: "read it: {{result}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("read it: all good");
		expect(ran.spawns).toBe(1);
	});

	it("names the tool it wants when it names one, and fails after the retries", async () => {
		project.write(".pi/agents/auditor2.md", agent("auditor2", "mustCallTool: grep\n"));
		const ran = await runInline(
			project,
			"audit",
			flow,
			"turns:\n  audit:\n    - say: APPROVED\n    - say: APPROVED again\n",
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "schema" });
		expect(ran.result.error).toMatch(/must call `grep` \(mustCallTool\)/);
	});
});
