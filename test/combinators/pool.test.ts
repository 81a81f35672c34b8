import { afterEach, describe, expect, it, vi } from "vitest";
import { createPool, createTrail, deadline, stopReason, timeoutReason } from "../../src/combinators/index.ts";
import { agent, cleanupReal, fakeOptions, fakeSpawn, real } from "./helpers.ts";

afterEach(cleanupReal);
const scout = agent("scout");

describe("a pool's turn, on real pi sessions", () => {
	it("closes the subagent after each turn in task lifetime, and labels turns <key>#<n>", async () => {
		const r = await real('turns:\n  scout:\n    - say: generic\n  "scout#2":\n    - say: second visit\n');
		const pool = createPool(r.options);
		const first = await pool.turn(scout, "one");
		expect(r.host.open()).toBe(0);
		const second = await pool.turn(scout, "two");
		await pool.closeAll();
		expect([first.output, second.output]).toEqual(["generic", "second visit"]);
		const starts = r.events.filter((e) => e.type === "turn_start");
		expect(starts.map((e) => e.label)).toEqual(["scout#1", "scout#2"]);
		expect(new Set(starts.map((e) => e.subagent)).size).toBe(2);
		expect(r.events.filter((e) => e.type === "close")).toHaveLength(2);
	});

	it("keeps one subagent per key in workflow lifetime, and a new one for another key", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		const pool = createPool({ ...r.options, lifetime: "workflow", path: "deliver#1/work" });
		await pool.turn(scout, "a");
		await pool.turn(scout, "b");
		await pool.turn(scout, "c", { key: "other" });
		expect(r.host.open()).toBe(2);
		await pool.closeAll();
		expect(r.host.open()).toBe(0);
		const starts = r.events.filter((e) => e.type === "turn_start");
		expect(starts[0].subagent).toBe(starts[1].subagent);
		expect(starts[2].subagent).not.toBe(starts[0].subagent);
		expect(starts.map((e) => e.label)).toEqual([
			"deliver#1/work/scout#1",
			"deliver#1/work/scout#2",
			"deliver#1/work/other#1",
		]);
	});

	it("refuses without spawning when the signal is already aborted, and records the refusal", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		const controller = new AbortController();
		controller.abort();
		const pool = createPool({ ...r.options, signal: controller.signal });
		const result = await pool.turn(scout, "go");
		await pool.closeAll();
		expect(result).toMatchObject({ ok: false, error: "aborted", errorKind: "aborted" });
		expect(pool.trail.steps).toEqual([result]);
		expect(r.events.map((e) => e.type)).toEqual(["refused"]);
		expect(r.host.scripted?.calls()).toBe(0);
	});

	it("cuts a turn at timeoutMs with the bound in words", async () => {
		const r = await real("turns:\n  scout:\n    - hang: true\n");
		const pool = createPool({ ...r.options, timeoutMs: 150 });
		const result = await pool.turn(scout, "go");
		await pool.closeAll();
		expect(result).toMatchObject({ ok: false, errorKind: "timeout", error: "timed out after 150ms" });
		expect(r.host.open()).toBe(0);
	});

	it("counts a signal aborted with a TimeoutError as a deadline", async () => {
		const r = await real("turns:\n  scout:\n    - hang: true\n");
		const pool = createPool({ ...r.options, signal: AbortSignal.timeout(100) });
		const result = await pool.turn(scout, "go");
		await pool.closeAll();
		expect(result).toMatchObject({ ok: false, errorKind: "timeout", error: "timed out" });
		const controller = new AbortController();
		controller.abort(timeoutReason(120_000));
		const refused = await createPool({ ...r.options, signal: controller.signal }).turn(scout, "go");
		expect(refused).toMatchObject({ ok: false, errorKind: "timeout", error: "timed out after 2m" });
	});

	it("fills in the usage of a turn that failed after spending tokens", async () => {
		const r = await real(
			"turns:\n  scout:\n    - say: looking\n      call: ls\n      args: {}\n    - fail: the provider fell over\n",
		);
		const pool = createPool(r.options);
		const result = await pool.turn(agent("scout", { tools: ["ls"] }), "go");
		await pool.closeAll();
		expect(result).toMatchObject({ ok: false, errorKind: "provider", error: "the provider fell over" });
		expect(result.usage.requests).toBe(2);
		expect(result.usage.totalTokens).toBeGreaterThan(0);
		expect(r.events.find((e) => e.type === "turn_end")).toMatchObject({ ok: false, usage: result.usage });
	});

	it("puts every subagent on the workflow's model, overriding the agent's pin", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		const pinned = agent("scout", { model: "nowhere/not-a-model" });
		const result = await createPool(r.options).turn(pinned, "go");
		expect(result).toMatchObject({ ok: true, model: "scripted/scripted" });
	});

	it("turns a spawn that throws (an unknown model) into a failed result, not a crash", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		const pool = createPool({ ...r.options, model: "nowhere/not-a-model" });
		const result = await pool.turn(scout, "go");
		await pool.closeAll();
		expect(result).toMatchObject({ ok: false, errorKind: "provider" });
		expect(result.error).toContain("not-a-model");
		expect(r.events[0]).toMatchObject({ type: "spawn", agent: "scout" });
	});

	it("ignores an event listener that throws", async () => {
		const r = await real('turns:\n  "*":\n    - say: ok\n');
		const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
		const result = await createPool({
			...r.options,
			onEvent: () => {
				throw new Error("broken reporter");
			},
		}).turn(scout, "go");
		expect(result.ok).toBe(true);
		expect(warn).toHaveBeenCalledWith(expect.stringContaining("broken reporter"));
		warn.mockRestore();
	});
});

describe("a pool's hold", () => {
	it("lives until closeAll even in task lifetime, one subagent for every ask", async () => {
		const r = await real('turns:\n  scout:\n    - say: "{{task}}"\n');
		const pool = createPool(r.options);
		const held = await pool.hold(scout);
		const a = await held.ask("first");
		const b = await held.ask("second");
		expect(r.host.open()).toBe(1);
		await pool.closeAll();
		expect(r.host.open()).toBe(0);
		expect([a.output, b.output]).toEqual(["first", "second"]);
		expect(held.id).toMatch(/^scout#/);
		expect(r.events.filter((e) => e.type === "spawn")).toHaveLength(1);
	});

	it("is refused when the signal already aborted: nothing spawns and every ask answers aborted", async () => {
		const fake = fakeSpawn();
		const controller = new AbortController();
		controller.abort();
		const pool = createPool(fakeOptions(fake.spawn, { signal: controller.signal }));
		const held = await pool.hold(scout, { key: "m" });
		expect(held.id).toBe("m");
		expect(await held.ask("a")).toMatchObject({ ok: false, errorKind: "aborted", error: "aborted" });
		expect(await held.ask("b")).toMatchObject({ ok: false, errorKind: "aborted" });
		expect(fake.subs).toHaveLength(0);
		expect(pool.trail.steps).toHaveLength(2);
	});
});

describe("a pool's closing, with a fake spawn", () => {
	it("closes every session even when one close throws, and is idempotent", async () => {
		const fake = fakeSpawn(
			() => ({}),
			(id) => id === "scout#2",
		);
		const events: string[] = [];
		const pool = createPool(
			fakeOptions(fake.spawn, {
				lifetime: "workflow",
				onEvent: (e) => e.type === "close" && events.push(`${e.subagent}${e.error ? " !" : ""}`),
			}),
		);
		for (const key of ["a", "b", "c"]) await pool.turn(scout, "x", { key });
		await Promise.all([pool.closeAll(), pool.closeAll()]);
		await pool.closeAll();
		expect(fake.subs.map((s) => s.closed)).toEqual([true, true, true]);
		expect(events.sort()).toEqual(["scout#1", "scout#2 !", "scout#3"]);
	});

	it("closes every session when the signal aborts, cutting the turns in flight", async () => {
		const fake = fakeSpawn(() => ({ delay: 10_000 }));
		const controller = new AbortController();
		const pool = createPool(fakeOptions(fake.spawn, { lifetime: "workflow", signal: controller.signal }));
		const held = await pool.hold(scout, { key: "held" });
		const turns = [pool.turn(scout, "a", { key: "a" }), pool.turn(scout, "b", { key: "b" })];
		setTimeout(() => controller.abort(), 30);
		const results = await Promise.all(turns);
		expect(results.map((r) => r.errorKind)).toEqual(["aborted", "aborted"]);
		await pool.closeAll();
		expect(fake.subs.map((s) => s.closed)).toEqual([true, true, true]);
		expect(await held.ask("later")).toMatchObject({ ok: false, errorKind: "aborted" });
		expect(fake.subs).toHaveLength(3);
	});

	it("plays turns of one kept subagent one after another, never two at once", async () => {
		const fake = fakeSpawn(() => ({ delay: 20 }));
		const pool = createPool(fakeOptions(fake.spawn, { lifetime: "workflow" }));
		await Promise.all([pool.turn(scout, "a"), pool.turn(scout, "b"), pool.turn(scout, "c")]);
		await pool.closeAll();
		expect(fake.subs).toHaveLength(1);
		expect(fake.maxInFlight()).toBe(1);
		expect(fake.subs[0].tasks).toEqual(["a", "b", "c"]);
	});

	it("passes the workflow's model to spawn only as an override, and the cwd always", async () => {
		const fake = fakeSpawn();
		await createPool(fakeOptions(fake.spawn, { model: "p/m" })).turn(agent("x", { model: "q/pinned" }), "t");
		await createPool(fakeOptions(fake.spawn)).turn(agent("y", { model: "q/pinned" }), "t");
		expect(fake.requests.map((r) => [r.model, r.cwd])).toEqual([
			["p/m", "/tmp"],
			[undefined, "/tmp"],
		]);
	});
});

describe("deadlines and stops, in words", () => {
	it("has no default deadline: a turn is given none unless timeoutMs is set", async () => {
		const fake = fakeSpawn((call) => ({ output: String(call.options.timeoutMs) }));
		expect((await createPool(fakeOptions(fake.spawn)).turn(scout, "t")).output).toBe("undefined");
		expect((await createPool(fakeOptions(fake.spawn, { timeoutMs: 1_500 })).turn(scout, "t")).output).toBe("1500");
	});

	it("words a bound that is not whole seconds in milliseconds, and a stop as stopped", async () => {
		const fake = fakeSpawn();
		const cut = new AbortController();
		cut.abort(timeoutReason(1_500));
		expect(await createPool(fakeOptions(fake.spawn, { signal: cut.signal })).turn(scout, "t")).toMatchObject({
			error: "timed out after 1500ms",
			errorKind: "timeout",
		});
		const stop = new AbortController();
		stop.abort(stopReason());
		expect(await createPool(fakeOptions(fake.spawn, { signal: stop.signal })).turn(scout, "t")).toMatchObject({
			error: "stopped",
			errorKind: "stopped",
		});
		expect(fake.requests).toHaveLength(0);
	});

	it("cuts a turn at a deadline signal with its bound in words", async () => {
		const fake = fakeSpawn(() => ({ delay: 5_000 }));
		const bound = deadline(50);
		const result = await createPool(fakeOptions(fake.spawn, { signal: bound.signal })).turn(scout, "t");
		bound.clear();
		expect(result).toMatchObject({ error: "timed out after 50ms", errorKind: "timeout" });
	});

	it("rewords a turn cut mid-way by a stop, which the subagent only saw as an abort", async () => {
		const fake = fakeSpawn(() => ({ delay: 5_000 }));
		const stop = new AbortController();
		setTimeout(() => stop.abort(stopReason()), 20);
		expect(await createPool(fakeOptions(fake.spawn, { signal: stop.signal })).turn(scout, "t")).toMatchObject({
			error: "stopped",
			errorKind: "stopped",
		});
	});

	it("records on a trail opened before it, so a workflow's clock can start first", async () => {
		const fake = fakeSpawn();
		const trail = createTrail();
		const pool = createPool(fakeOptions(fake.spawn), trail);
		const result = await pool.turn(scout, "t");
		expect(pool.trail).toBe(trail);
		expect(trail.steps).toEqual([result]);
	});
});
