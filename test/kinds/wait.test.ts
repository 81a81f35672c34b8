/**
 * The `wait` kind end to end: what the language says of it (keys, faults, plan, bounds, Mermaid, report),
 * and how it runs: on the run's clock, its deadline kept as a journal fact before it sleeps, so a resume
 * after a crash mid-wait sleeps only what is left; a dry run's instant clock does not sleep at all.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Clock, instantClock, type RunOptions } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { mermaidOf, planOf, showPlan } from "../../src/language/render/index.ts";
import { graphSvg } from "../../src/report/graph.ts";
import type { JournalEntry } from "../../src/runs/journal.ts";
import { folderRecorder } from "../../src/runs/recorder.ts";
import { journalState } from "../../src/runs/index.ts";
import { faultsAt, judge } from "../helpers/flows.ts";

const flow = (nodes: string) =>
	`---\nname: t\ndescription: waits\ninput: string\nnodes:\n${nodes}---\n\n## plan\n\nPlan it.\n`;

const PLAN = "  - id: plan\n    agent: planner\n    output: { n: number, s: string, ok: boolean }\n";

function checked(text: string): CheckedFlow {
	const r = judge(text);
	if (!r.value) throw new Error(r.faults.map((f) => `${f.code} ${f.message}`).join("\n"));
	return r.value;
}

describe("the wait kind in the language", () => {
	it("a literal wait checks, outputs { ms }, and counts its duration in the plan, Mermaid and the report", () => {
		const f = checked(flow(`${PLAN}  - id: pause\n    wait: 90s\n`));
		const plan = showPlan(planOf(f, { file: "t.md" }));
		expect(plan).toContain("pause · wait 1m30s");
		// The plan's worst case is the agent's, then the wait's 90 seconds.
		expect(f.bounds.get("pause")).toMatchObject({ turns: 0, ms: 90_000 });
		expect(f.bound.ms).toBe((f.bounds.get("plan")?.ms ?? 0) + 90_000);
		expect(mermaidOf(f)).toMatch(/\["pause<br\/>wait 1m30s"\]/);
		expect(graphSvg(f, new Map())).toContain('data-node="pause"');
		expect(f.types.get("pause")).toMatchObject({ kind: "object" });
	});

	it("wait-from reads a number of seconds or a duration, bounded by max", () => {
		const f = checked(
			flow(
				`${PLAN}  - id: pause\n    wait-from: plan.output.n\n    max: 10m\n  - id: again\n    wait-from: plan.output.s\n    max: 1h\n`,
			),
		);
		expect(f.bounds.get("pause")?.ms).toBe(600_000);
		expect(f.bounds.get("again")?.ms).toBe(3_600_000);
		expect(showPlan(planOf(f, { file: "t.md" }))).toContain("wait for plan.output.n (at most 10m)");
	});

	it("refuses what it cannot bound or read", () => {
		expect(faultsAt(flow(`${PLAN}  - id: pause\n    wait-from: plan.output.n\n`))).toEqual(["missing-key 10:5"]);
		expect(faultsAt(flow(`${PLAN}  - id: pause\n    wait-from: plan.output.ok\n    max: 1m\n`))).toEqual([
			"key-type 10:16",
		]);
		expect(faultsAt(flow(`${PLAN}  - id: pause\n    wait: soon\n`))[0]).toMatch(/^duration-invalid 10:11/);
		expect(faultsAt(flow(`${PLAN}  - id: pause\n    wait: 1m\n    max: 2m\n`))).toEqual(["unknown-key 11:5"]);
		expect(faultsAt(flow(`${PLAN}  - id: pause\n    wait: 1m\n    retry: 2\n`))).toEqual(["retry-refused 11:5"]);
	});
});

/** A clock the test moves: `sleep` records what it was asked and moves time on by it. */
function fakeClock(start: number): Clock & { slept: number[] } {
	let now = start;
	const slept: number[] = [];
	return {
		slept,
		now: () => now,
		async sleep(ms) {
			slept.push(ms);
			now += ms;
		},
	};
}

const noSpawn = (() => {
	throw new Error("a wait spawns no turn");
}) as unknown as RunOptions["spawn"];

const run = (f: CheckedFlow, options: Partial<RunOptions>) =>
	runFlow(f, "go", { spawn: noSpawn, models: new Map(), cwd: tmpdir(), ...options });

describe("running a wait", () => {
	const WAITS = flow("  - id: pause\n    wait: 90s\n").replace(/\n## plan[\s\S]*$/, "\n");
	let dir: string | undefined;
	afterEach(() => {
		if (dir) rmSync(dir, { recursive: true, force: true });
		dir = undefined;
	});

	it("sleeps its duration on the run's clock and keeps its deadline as a journal fact first", async () => {
		const clock = fakeClock(1_000_000);
		const entries: JournalEntry[] = [];
		dir = mkdtempSync(join(tmpdir(), "wait-"));
		const recorder = folderRecorder(dir, { append: (e) => entries.push(e), close: () => {} }, 1);
		const out = await run(checked(WAITS), { clock, recorder });
		expect(out.ok).toBe(true);
		expect(out.output).toEqual({ ms: 90_000 });
		expect(clock.slept).toEqual([90_000]);
		const fact = entries.find((e) => e.type === "fact");
		expect(fact).toMatchObject({ type: "fact", path: "pause", key: "deadline", value: 1_090_000 });
		// The fact is written before the visit ends: a crash mid-sleep leaves it in the journal.
		expect(entries.indexOf(fact as JournalEntry)).toBeLessThan(entries.findIndex((e) => e.type === "visit_end"));
	});

	it("resumed after a crash mid-wait, sleeps only what is left, and none once the deadline passed", async () => {
		const entries: JournalEntry[] = [];
		dir = mkdtempSync(join(tmpdir(), "wait-"));
		const recorder = folderRecorder(dir, { append: (e) => entries.push(e), close: () => {} }, 1);
		// The first life crashes 60 s into its 90 s: its journal holds the start and the deadline, no end.
		const stop = new AbortController();
		const first = fakeClock(1_000_000);
		first.sleep = async (_ms, signal) => {
			stop.abort();
			throw signal?.reason;
		};
		await run(checked(WAITS), { clock: first, recorder, signal: stop.signal });
		const crashed = entries.filter((e) => e.type !== "visit_end" && e.type !== "run_end");
		expect(crashed.some((e) => e.type === "fact")).toBe(true);
		const replay = journalState(crashed).replay;

		const second = fakeClock(1_060_000);
		const out = await run(checked(WAITS), { clock: second, replay });
		expect(out.output).toEqual({ ms: 90_000 });
		expect(second.slept).toEqual([30_000]);

		const late = fakeClock(2_000_000);
		await run(checked(WAITS), { clock: late, replay });
		expect(late.slept).toEqual([0]);
	});

	it("a stop mid-wait ends it at once as a stop", async () => {
		const stop = new AbortController();
		const clock: Clock = {
			now: () => 0,
			sleep: (_ms, signal) =>
				new Promise((_, fail) => {
					signal?.addEventListener("abort", () => fail(signal.reason));
					stop.abort();
				}),
		};
		const out = await run(checked(WAITS), { clock, signal: stop.signal });
		expect(out.ok).toBe(false);
		expect(out.errorKind).toBe("stopped");
	});

	it("wait-from sleeps what a node produced: seconds, a duration, capped at max; anything else fails", async () => {
		const text =
			"---\nname: t\ndescription: w\ninput: string\nnodes:\n  - id: pause\n    wait-from: input\n    max: 10m\n---\n";
		for (const [input, ms] of [
			["90s", 90_000],
			["1h", 600_000],
		] as const) {
			const clock = fakeClock(0);
			const out = await runFlow(checked(text), input, { spawn: noSpawn, models: new Map(), cwd: tmpdir(), clock });
			expect(out.output).toEqual({ ms });
			expect(clock.slept).toEqual([ms]);
		}
		const bad = await runFlow(checked(text), "soon", { spawn: noSpawn, models: new Map(), cwd: tmpdir() });
		expect(bad.ok).toBe(false);
		expect(bad.errorKind).toBe("condition");
		expect(bad.error).toContain('"soon"');
	});

	it("on the instant clock of a dry run, a ten-minute wait takes no time and still says ten minutes", async () => {
		const started = performance.now();
		const out = await run(checked(flow("  - id: pause\n    wait: 10m\n").replace(/\n## plan[\s\S]*$/, "\n")), {
			clock: instantClock(),
		});
		expect(out.output).toEqual({ ms: 600_000 });
		expect(performance.now() - started).toBeLessThan(2_000);
	});
});
