import { afterEach, describe, expect, it } from "vitest";
import { fanOut } from "../../src/combinators/index.ts";
import { agent, cleanupReal, fakeOptions, fakeSpawn, real } from "./helpers.ts";

afterEach(cleanupReal);
const scout = agent("scout");

describe("fanOut on real sessions", () => {
	it("keeps a failed branch in its slot while the others carry on, and labels every branch", async () => {
		const r = await real('turns:\n  scout:\n    - say: "found {{task}}"\n  "scout[1]#1":\n    - fail: rate limited\n');
		const result = await fanOut({ ...r.options, agent: scout, tasks: ["a", "b", "c"], concurrency: 3 });
		expect(result.results.map((x) => [x.ok, x.output])).toEqual([
			[true, "found a"],
			[false, ""],
			[true, "found c"],
		]);
		expect(result).toMatchObject({ ok: false, error: "rate limited", errorKind: "provider", agent: "scout" });
		expect(result.output).toBe(
			"## scout (1/3)\n\nfound a\n\n## scout (2/3) - failed: rate limited\n\n## scout (3/3)\n\nfound c",
		);
		expect(result.steps).toHaveLength(3);
		expect(r.host.open()).toBe(0);
	});

	it("applies timeoutMs per branch: only the branch that hangs is cut", async () => {
		const r = await real('turns:\n  scout:\n    - say: quick\n  "scout[1]#1":\n    - hang: true\n');
		const result = await fanOut({ ...r.options, agent: scout, tasks: ["a", "b", "c"], concurrency: 3, timeoutMs: 300 });
		expect(result.results.map((x) => x.error ?? x.output)).toEqual(["quick", "timed out after 300ms", "quick"]);
		expect(result.results[1].errorKind).toBe("timeout");
	});

	// How close busy/wall comes to the concurrency is a speed figure (bench/engine.ts); here only what
	// holds on any machine: branches overlapped, and never more than two at once.
	it("reports busyMs over wallMs: branches overlap, up to the concurrency", async () => {
		const r = await real("turns:\n  scout:\n    - say: done\n      delay: 300\n");
		const result = await fanOut({ ...r.options, agent: scout, tasks: ["1", "2", "3", "4"], concurrency: 2 });
		expect(result.ok).toBe(true);
		const ratio = result.usage.busyMs / result.usage.wallMs;
		expect(ratio).toBeGreaterThan(1);
		expect(ratio).toBeLessThanOrEqual(2.05);
	});
});

describe("fanOut's timing and cancellation, with a fake spawn", () => {
	it("returns results in task order when later tasks finish first", async () => {
		const fake = fakeSpawn(({ task }) => ({ delay: Number(task), output: `t${task}` }));
		const result = await fanOut({
			...fakeOptions(fake.spawn),
			agent: scout,
			tasks: ["80", "50", "20", "1"],
			concurrency: 4,
		});
		expect(result.results.map((x) => x.output)).toEqual(["t80", "t50", "t20", "t1"]);
		expect(result.steps.map((x) => x.output)).toEqual(["t1", "t20", "t50", "t80"]);
	});

	it("never exceeds its concurrency", async () => {
		const fake = fakeSpawn(({ task }) => ({ delay: 5 + (Number(task) % 4) * 5 }));
		await fanOut({
			...fakeOptions(fake.spawn),
			agent: scout,
			tasks: Array.from({ length: 10 }, (_, i) => String(i)),
			concurrency: 3,
		});
		expect(fake.maxInFlight()).toBe(3);
		expect(fake.open()).toBe(0);
	});

	it("with failFast, cancels the running branches and refuses the unstarted ones", async () => {
		const fake = fakeSpawn(({ task }) =>
			task === "bad" ? { delay: 10, ok: false, error: "broke", errorKind: "provider" } : { delay: 5_000 },
		);
		const result = await fanOut({
			...fakeOptions(fake.spawn),
			agent: scout,
			tasks: ["slow", "bad", "slow", "never"],
			concurrency: 3,
			failFast: true,
		});
		expect(result.results.map((x) => x.errorKind)).toEqual(["aborted", "provider", "aborted", "aborted"]);
		expect(result.results[0].error).toBe("cancelled: scout (2/4) failed");
		expect(result.results[3].error).toBe("cancelled: scout (2/4) failed");
		expect(result).toMatchObject({ ok: false, error: "broke" });
		expect(fake.subs).toHaveLength(3);
		expect(fake.open()).toBe(0);
	});

	it("without failFast, the other branches carry on", async () => {
		const fake = fakeSpawn(({ task }) => (task === "bad" ? { ok: false, error: "broke" } : { delay: 30 }));
		const result = await fanOut({ ...fakeOptions(fake.spawn), agent: scout, tasks: ["a", "bad", "c"], concurrency: 3 });
		expect(result.results.map((x) => x.ok)).toEqual([true, false, true]);
	});

	it("closes every session when the caller's signal aborts", async () => {
		const fake = fakeSpawn(() => ({ delay: 5_000 }));
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 40);
		const result = await fanOut({
			...fakeOptions(fake.spawn, { signal: controller.signal, lifetime: "workflow" }),
			agent: scout,
			tasks: ["a", "b", "c", "d"],
			concurrency: 2,
		});
		expect(result.results.map((x) => x.error)).toEqual(["aborted", "aborted", "aborted", "aborted"]);
		expect(fake.subs).toHaveLength(2);
		expect(fake.open()).toBe(0);
		expect(result.usage.input).toBeGreaterThan(0);
	});

	it("gives each branch its own subagent even in workflow lifetime", async () => {
		const fake = fakeSpawn();
		await fanOut({
			...fakeOptions(fake.spawn, { lifetime: "workflow" }),
			agent: scout,
			tasks: ["a", "b"],
			concurrency: 1,
		});
		expect(fake.subs.map((s) => s.tasks)).toEqual([["a"], ["b"]]);
	});
});
