/**
 * What a retried turn is given. On the same subagent, "do the same task again" is enough: the task is in
 * its conversation. A retry after a timeout runs on a fresh subagent, which has no conversation.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("retries", () => {
	it("retries a provider failure on the same session, which still holds the task", async () => {
		const flow = flowOf("r", "  - id: look\n    agent: scout\n    retry: 1\n    reads: [input]\n", {
			look: "Look at the thing.",
		});
		const ran = await runInline(
			project,
			"r",
			flow,
			`turns:\n  look:\n    - fail: overloaded\n    - say: "{{task}}"\n`,
			"the question",
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toBe("Your last answer failed (provider: overloaded). Do the same task again.");
		expect(ran.spawns).toBe(1);
	});

	it("retries a review that ended without its verdict", async () => {
		const flow = flowOf(
			"rev",
			`  - id: pair
    loop: review.output.approved
    max: 2
    ledger: pair
    do:
      - id: code
        agent: coder
      - id: review
        agent: reviewer
        verdict: pair
        retry: 1
`,
			{ code: "Code.", review: "Review." },
		);
		const ran = await runInline(
			project,
			"rev",
			flow,
			`turns:
  code:
    - say: done
  "pair#1/review":
    - call: verdict
      args: { approved: false, raised: [add a test] }
  "pair#2/review":
    - say: "forgot the verdict"
    - call: verdict
      args: { approved: true, resolved: [{ id: o1, how: addressed }] }
`,
		);
		expect(ran.result).toMatchObject({ ok: true, output: { converged: true, iterations: 2 } });
		const starts = ran.events.filter((e) => e.type === "turn_start" && e.path === "pair#2/review");
		expect(starts).toHaveLength(2);
	});

	// Found by this test: a retry on a fresh subagent was prompted with only "Your last answer failed (…).
	// Do the same task again.", which a fresh session cannot do (it never saw the task). agent.ts now gives
	// a fresh subagent the whole task.
	it("gives a retry on a fresh subagent (after a timeout) the whole task", async () => {
		const flow = flowOf("t", "  - id: look\n    agent: scout\n    retry: 1\n    timeout: 200ms\n    reads: [input]\n", {
			look: "Look at the thing.",
		});
		const ran = await runInline(
			project,
			"t",
			flow,
			`turns:\n  look:\n    - hang: true\n    - say: "{{task}}"\n`,
			"the question",
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.spawns).toBe(2);
		expect(ran.result.output).toContain("Look at the thing.");
		expect(ran.result.output).toContain("## input\n\nthe question");
	});
});
