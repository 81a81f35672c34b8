import { describe, expect, it } from "vitest";
import { createTrail } from "../../src/combinators/index.ts";
import type { Result } from "../../src/runtime/result.ts";
import { emptyUsage } from "../../src/runtime/usage.ts";
import { wait } from "./helpers.ts";

const step = (agent: string, ok: boolean, ms: number, tokens = 10): Result => ({
	agent,
	output: agent,
	messages: [],
	usage: { ...emptyUsage(), input: tokens, totalTokens: tokens, ms },
	model: "m/m",
	ok,
	...(ok ? {} : { error: `${agent} broke`, errorKind: "provider" as const }),
});

describe("a trail", () => {
	it("records steps in order and hands back what it was given", () => {
		const trail = createTrail();
		const a = step("a", true, 5);
		expect(trail.record(a)).toBe(a);
		trail.record(step("b", false, 5));
		trail.record(step("c", false, 5));
		expect(trail.steps.map((s) => s.agent)).toEqual(["a", "b", "c"]);
		expect(trail.broken()?.agent).toBe("b");
	});

	it("sums tokens and busy time, and measures wall time on its own clock up to its last step", async () => {
		const trail = createTrail();
		trail.record(step("a", true, 100, 3));
		await wait(40);
		trail.record(step("b", true, 100, 4));
		const usage = trail.usage();
		expect(usage.input).toBe(7);
		expect(usage.busyMs).toBe(200);
		expect(usage.wallMs).toBeGreaterThanOrEqual(35);
		expect(usage.ms).toBe(usage.wallMs);
		await wait(30);
		expect(trail.usage().wallMs).toBe(usage.wallMs);
	});

	it("takes a nested workflow's busy time, not its wall time", () => {
		const trail = createTrail();
		const nested = { ...step("fan", true, 50), usage: { ...step("fan", true, 50).usage, busyMs: 200, wallMs: 50 } };
		trail.record(nested);
		expect(trail.usage().busyMs).toBe(200);
		expect(trail.broken()).toBeUndefined();
	});
});
