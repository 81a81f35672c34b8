import { afterEach, describe, expect, it } from "vitest";
import { chain } from "../../src/combinators/index.ts";
import { agent, cleanupReal, real } from "./helpers.ts";

afterEach(cleanupReal);
const scout = agent("scout");
const reviewer = agent("reviewer");
const writer = agent("writer");

describe("chain", () => {
	it("feeds the output of step n to step n+1 and reads as its last step", async () => {
		const r = await real('turns:\n  scout:\n    - say: ALPHA-REPORT\n  reviewer:\n    - say: "reviewed: {{task}}"\n');
		const result = await chain({ ...r.options, steps: [scout, reviewer], input: "look around" });
		expect(result).toMatchObject({ ok: true, agent: "reviewer", output: "reviewed: ALPHA-REPORT" });
		expect(result.steps.map((s) => [s.agent, s.output])).toEqual([
			["scout", "ALPHA-REPORT"],
			["reviewer", "reviewed: ALPHA-REPORT"],
		]);
		expect(result.usage.totalTokens).toBe(result.steps[0].usage.totalTokens + result.steps[1].usage.totalTokens);
		expect(result.usage.busyMs).toBeLessThanOrEqual(result.usage.wallMs + 1);
		expect(r.host.open()).toBe(0);
	});

	it("stops at a failing step: there is no input left for the next one", async () => {
		const r = await real(
			"turns:\n  scout:\n    - say: fine\n  reviewer:\n    - fail: overloaded\n  writer:\n    - say: never\n",
		);
		const result = await chain({ ...r.options, steps: [scout, reviewer, writer], input: "go" });
		expect(result).toMatchObject({ ok: false, agent: "reviewer", error: "overloaded", errorKind: "provider" });
		expect(result.steps.map((s) => s.agent)).toEqual(["scout", "reviewer"]);
		expect(r.events.filter((e) => e.type === "spawn").map((e) => e.agent)).toEqual(["scout", "reviewer"]);
	});

	it("gives the same agent twice a fresh subagent each time: lifetime defaults to task", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		await chain({ ...r.options, steps: [scout, scout], input: "go" });
		const ids = r.events.flatMap((e) => (e.type === "turn_start" ? [e.subagent] : []));
		expect(new Set(ids).size).toBe(2);
	});
});
