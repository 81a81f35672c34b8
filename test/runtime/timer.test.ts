// Turns' deadlines and idle watches (src/runtime/timer.ts, `watchTurn`): each fires once, on time, whatever
// the other turns watched beside it; touches keep an idle watch quiet; once nothing is watched, no timer
// is left to keep the process alive, and a turn watched after that keeps it alive again.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { watchTurn } from "../../src/runtime/index.ts";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function watched(o: { timeoutMs?: number; idleMs?: number }) {
	const start = performance.now();
	const fired: { what: string; after: number }[] = [];
	const watch = watchTurn({
		...o,
		timedOut: () => fired.push({ what: "timeout", after: performance.now() - start }),
		idled: () => fired.push({ what: "idle", after: performance.now() - start }),
	});
	return { watch, fired };
}

describe("watchTurn", () => {
	it("times a turn out once, not before its deadline, while a later turn beside it waits", async () => {
		const late = watched({ timeoutMs: 10_000 });
		const soon = watched({ timeoutMs: 40 });
		await sleep(120);
		expect(soon.fired).toHaveLength(1);
		expect(soon.fired[0].what).toBe("timeout");
		expect(soon.fired[0].after).toBeGreaterThanOrEqual(39);
		expect(late.fired).toEqual([]);
		late.watch.clear();
		soon.watch.clear();
	});

	it("calls a turn idle after idleMs without a touch, and touches keep it alive", async () => {
		const alive = watched({ idleMs: 60, timeoutMs: 10_000 });
		const quiet = watched({ idleMs: 60 });
		for (let i = 0; i < 6; i++) {
			await sleep(20);
			alive.watch.touch();
		}
		expect(quiet.fired.map((f) => f.what)).toEqual(["idle"]);
		expect(quiet.fired[0].after).toBeGreaterThanOrEqual(59);
		expect(alive.fired).toEqual([]);
		alive.watch.clear();
		quiet.watch.clear();
	});

	it("fires nothing for a turn cleared before it was due", async () => {
		const a = watched({ timeoutMs: 30, idleMs: 30 });
		const b = watched({ timeoutMs: 5_000 });
		a.watch.clear();
		a.watch.clear();
		await sleep(60);
		expect(a.fired).toEqual([]);
		b.watch.clear();
		expect(b.fired).toEqual([]);
	});

	it("leaves nothing to keep a process alive once its turns are cleared, and nothing without a deadline", () => {
		const timer = fileURLToPath(new URL("../../src/runtime/timer.ts", import.meta.url));
		const script = [
			`const { watchTurn } = await import(${JSON.stringify(timer)});`,
			"const noop = () => {};",
			"const ws = [watchTurn({ timeoutMs: 20_000, timedOut: noop, idled: noop }), watchTurn({ idleMs: 30_000, timedOut: noop, idled: noop })];",
			"watchTurn({ timedOut: noop, idled: noop });",
			"for (const w of ws) w.clear();",
		].join("\n");
		const started = performance.now();
		const ran = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			encoding: "utf8",
			timeout: 15_000,
		});
		expect(ran.status, ran.stderr).toBe(0);
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	it("keeps a process alive for a turn watched after the timer was let go of, until the turn is due", () => {
		const timer = fileURLToPath(new URL("../../src/runtime/timer.ts", import.meta.url));
		// The first turn's timer is let go of as it is cleared; the second takes it back, and nothing else
		// keeps the process alive until its deadline.
		const script = [
			`const { watchTurn } = await import(${JSON.stringify(timer)});`,
			"const noop = () => {};",
			"watchTurn({ timeoutMs: 200, timedOut: noop, idled: noop }).clear();",
			'watchTurn({ timeoutMs: 300, timedOut: () => console.log("due"), idled: noop });',
		].join("\n");
		const ran = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			encoding: "utf8",
			timeout: 15_000,
		});
		expect(ran.status, ran.stderr).toBe(0);
		expect(ran.stdout.trim()).toBe("due");
	});
});
