// How a finished run reads in pi: the last line says how it ended, and a file the run could not write is
// said, not dropped.
import { describe, expect, it } from "vitest";
import { answerOf } from "../../../src/extension/launch/answer.ts";
import type { FlowResult } from "../../../src/engine/index.ts";
import { emptyUsage } from "../../../src/runtime/usage.ts";

const result = (extra: Partial<FlowResult> = {}): FlowResult => ({
	flow: "explore",
	ok: true,
	output: "the answer",
	visits: [],
	usage: emptyUsage(),
	...extra,
});

describe("answerOf", () => {
	it("ends with ok, the folder and the usage", () => {
		const { content, end } = answerOf("explore", "How?", { result: result(), runDir: ".pi/runs/r1" });
		expect(content).toContain("Result of the explore flow, asked: How?\n\nthe answer\n\nok · .pi/runs/r1");
		expect(end.startsWith("ok · .pi/runs/r1")).toBe(true);
	});

	it("names the visit a run failed at, once", () => {
		const { end } = answerOf("explore", "How?", {
			result: result({ ok: false, failedAt: "look", error: "look: provider: down" }),
			runDir: "r",
		});
		expect(end).toBe("failed at look: provider: down · r");
	});

	it("says which end-of-run files could not be written", () => {
		const { content } = answerOf("explore", "How?", {
			result: result(),
			runDir: "r",
			unwritten: ["result.json: EACCES: permission denied"],
		});
		expect(content).toMatch(/\(could not write result\.json: EACCES: permission denied: the journal keeps the run\)$/);
	});
});
