import { afterEach, describe, expect, it } from "vitest";
import { fanOut, reduce } from "../../src/combinators/index.ts";
import { agent, cleanupReal, real } from "./helpers.ts";

afterEach(cleanupReal);
const scout = agent("scout");
const synthesiser = agent("synthesiser");

describe("reduce", () => {
	it("shows failed branches to the synthesiser instead of dropping them", async () => {
		const r = await real(
			'turns:\n  scout:\n    - say: "report on {{task}}"\n  "scout[1]#1":\n    - fail: crashed\n  synthesiser:\n    - say: "{{task}}"\n',
		);
		const fan = await fanOut({ ...r.options, agent: scout, tasks: ["a", "b", "c"], concurrency: 3 });
		const answer = await reduce({ ...r.options, agent: synthesiser, results: fan.results, input: "What is there?" });
		expect(answer.output).toContain("What is there?");
		expect(answer.output).toContain("1 of 3 reports failed");
		expect(answer.output).toContain("## scout (1/3)\n\nreport on a");
		expect(answer.output).toContain("## scout (2/3) - failed: crashed");
		expect(answer.output).toContain("## scout (3/3)\n\nreport on c");
	});

	it("reads as its synthesis, with the branches then the synthesis as steps, and counts them all", async () => {
		const r = await real("turns:\n  scout:\n    - say: report\n  synthesiser:\n    - say: THE ANSWER\n");
		const fan = await fanOut({ ...r.options, agent: scout, tasks: ["a", "b"], concurrency: 2 });
		const answer = await reduce({ ...r.options, agent: synthesiser, results: fan.results, input: "q" });
		expect(answer).toMatchObject({ ok: true, agent: "synthesiser", output: "THE ANSWER" });
		expect(answer.steps.map((s) => s.agent)).toEqual(["scout", "scout", "synthesiser"]);
		const sum = answer.steps.reduce((t, s) => t + s.usage.totalTokens, 0);
		expect(answer.usage.totalTokens).toBe(sum);
		expect(answer.usage.busyMs).toBeGreaterThan(answer.steps[2].usage.ms);
		expect(r.host.open()).toBe(0);
	});
});
