import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("agent nodes", () => {
	it("takes a typed output only through submit, refusing a wrong value back to the model", async () => {
		const flow = flowOf("typed", "  - id: plan\n    agent: planner\n    output: { tasks: [string] }\n", {
			plan: "Plan it.",
		});
		const ran = await runInline(
			project,
			"typed",
			flow,
			`turns:\n  plan:\n    - call: submit\n      args: { task: [a] }\n    - call: submit\n      args: { tasks: [a, b] }\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toEqual({ tasks: ["a", "b"] });
		expect(ran.calls).toBe(2);
		expect(ran.open).toBe(0);
	});

	it("fails `schema` when the turn ends with no accepted submit, after its retries", async () => {
		const flow = flowOf("typed", "  - id: plan\n    agent: planner\n    retry: 1\n    output: { n: number }\n", {
			plan: "Count.",
		});
		const ran = await runInline(
			project,
			"typed",
			flow,
			`turns:\n  plan:\n    - say: I think it is 3\n    - say: still prose\n`,
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "schema", failedAt: "plan" });
		expect(ran.calls).toBe(2);
	});

	it("retries a provider failure on the same subagent, with the failed attempt named", async () => {
		const flow = flowOf("r", "  - id: look\n    agent: scout\n    retry: 2\n", { look: "Look." });
		const ran = await runInline(
			project,
			"r",
			flow,
			`turns:\n  look:\n    - fail: overloaded\n    - fail: overloaded again\n    - say: "{{task}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("Your last answer failed (provider: overloaded again)");
		expect(ran.spawns).toBe(1);
	});

	it("retries a timeout on a fresh subagent", async () => {
		const flow = flowOf("t", "  - id: look\n    agent: scout\n    retry: 1\n    timeout: 200ms\n", { look: "Look." });
		const ran = await runInline(project, "t", flow, `turns:\n  look:\n    - hang: true\n    - say: done\n`);
		expect(ran.result).toMatchObject({ ok: true, output: "done" });
		expect(ran.spawns).toBe(2);
		expect(ran.open).toBe(0);
	});

	it("says `timed out after` with the node's bound when it has no retry left", async () => {
		const flow = flowOf("t", "  - id: look\n    agent: scout\n    timeout: 150ms\n", { look: "Look." });
		const ran = await runInline(project, "t", flow, `turns:\n  look:\n    - hang: true\n`);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "timeout",
			error: "look: timeout: timed out after 150ms",
		});
	});

	it("keeps a failed node's value for later nodes under on-fail: continue", async () => {
		const flow = flowOf(
			"c",
			"  - id: look\n    agent: scout\n    on-fail: continue\n  - id: answer\n    agent: synthesiser\n    reads: [look, look.ok, look.error.kind]\n",
			{ look: "Look.", answer: "Answer." },
		);
		const ran = await runInline(
			project,
			"c",
			flow,
			`turns:\n  look:\n    - fail: boom\n  answer:\n    - say: "{{task}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain('"ok": false');
		expect(ran.result.output).toContain("## look.error.kind\n\nprovider");
	});

	it("picks the agent from an enum value with agent-from and among", async () => {
		const flow = flowOf(
			"pick",
			"  - id: plan\n    agent: planner\n    output: { who: scout | reviewer }\n  - id: act\n    agent-from: plan.output.who\n    among: [scout, reviewer]\n",
			{ plan: "Pick.", act: "Act." },
		);
		const ran = await runInline(
			project,
			"pick",
			flow,
			`turns:\n  plan:\n    - call: submit\n      args: { who: reviewer }\n  act:\n    - say: acted\n`,
		);
		expect(ran.result.ok).toBe(true);
		const act = ran.events.find((e) => e.type === "turn_start" && e.path === "act");
		expect(act && "agent" in act && act.agent).toBe("reviewer");
	});

	it("shares one subagent between nodes of a memory scope", async () => {
		const flow = flowOf(
			"mem",
			"  - id: first\n    agent: scout\n    memory: flow\n  - id: second\n    agent: scout\n    memory: flow\n  - id: other\n    agent: scout\n",
			{ first: "One.", second: "Two.", other: "Three." },
		);
		const ran = await runInline(project, "mem", flow, `turns:\n  '*':\n    - say: ok\n`);
		expect(ran.result.ok).toBe(true);
		expect(ran.spawns).toBe(2);
		expect(ran.open).toBe(0);
	});
});
