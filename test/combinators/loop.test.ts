import { afterEach, describe, expect, it } from "vitest";
import { loop } from "../../src/combinators/index.ts";
import { agent, cleanupReal, real } from "./helpers.ts";

afterEach(cleanupReal);
const coder = agent("coder");
const reviewer = agent("reviewer");
const lgtm = (step: { output: string }) => /\bLGTM\b/.test(step.output);

describe("loop", () => {
	it("stops when the bar is reached: converged, and ok", async () => {
		const r = await real(
			'turns:\n  coder:\n    - say: "draft for: {{task}}"\n  reviewer:\n    - say: needs work\n  "reviewer#2":\n    - say: LGTM\n',
		);
		const result = await loop({ ...r.options, steps: [coder, reviewer], input: "Implement the parser", until: lgtm });
		expect(result).toMatchObject({ ok: true, converged: true, iterations: 2, agent: "reviewer", output: "LGTM" });
		expect(result.steps.map((s) => s.agent)).toEqual(["coder", "reviewer", "coder", "reviewer"]);
		// The second round is reminded of the task and handed the last round's answer.
		expect(result.steps[2].output).toBe("draft for: Implement the parser\n\n## Last round\n\nneeds work");
	});

	it("reads a loop that ran out of iterations as ok but not converged; the cap defaults to 5", async () => {
		const r = await real("turns:\n  coder:\n    - say: try\n  reviewer:\n    - say: not yet\n");
		const result = await loop({ ...r.options, steps: [coder, reviewer], input: "go", until: lgtm });
		expect(result).toMatchObject({ ok: true, converged: false, iterations: 5 });
		expect(result.steps).toHaveLength(10);
	});

	it("stops at a failing turn: not ok, not converged", async () => {
		const r = await real(
			'turns:\n  coder:\n    - say: try\n  reviewer:\n    - say: not yet\n  "coder#2":\n    - fail: quota\n',
		);
		const result = await loop({ ...r.options, steps: [coder, reviewer], input: "go", until: lgtm, maxIterations: 4 });
		expect(result).toMatchObject({ ok: false, converged: false, iterations: 2, error: "quota" });
		expect(result.steps).toHaveLength(3);
	});

	it("keeps the coder's subagent across iterations in workflow lifetime", async () => {
		const r = await real("turns:\n  coder:\n    - say: try\n  reviewer:\n    - say: not yet\n");
		await loop({
			...r.options,
			steps: [coder, reviewer],
			input: "go",
			until: lgtm,
			maxIterations: 3,
			lifetime: "workflow",
		});
		const coderIds = r.events.flatMap((e) => (e.type === "turn_start" && e.agent === "coder" ? [e.subagent] : []));
		expect(coderIds).toHaveLength(3);
		expect(new Set(coderIds).size).toBe(1);
		expect(r.host.open()).toBe(0);
	});
});
