/**
 * Faults injected into a 10-turn run, at every turn: a provider error, a hang past the idle bound, a check
 * script that never exits, and a journal whose disk stops taking writes. Each run must end with an error
 * that names the visit, close every session it opened, and be resumable to the output an unbroken run
 * gives. Every case has its own temp project; independent cases run a few at a time. Ten turns put a fault
 * first, in the middle and last as twenty did, at a quarter of the cost (the work grows as the square of the
 * turns: a run per turn, each as long as the flow).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBashCheck, prepareRun } from "../../src/engine/index.ts";
import { fileJournal, type JournalWriter, runsHome } from "../../src/runs/index.ts";
import { flowOf } from "../helpers/run.ts";
import { checked, cleanupProjects, inBatches, project, resume, start, stillAlive } from "../helpers/durable.ts";

const TURNS = 10;
const IDS = Array.from({ length: TURNS }, (_, i) => `n${i + 1}`);
/** Each turn says what it read plus its own id, so the last output proves every turn ran, in order, once. */
const FULL = IDS.join(">");
const FLOW = flowOf(
	"ten",
	IDS.map((id, i) => `  - id: ${id}\n    agent: scout\n${i ? `    reads: [${IDS[i - 1]}]\n` : ""}`).join(""),
	Object.fromEntries(IDS.map((id) => [id, `Add your name to what you read.`])),
);

/** The script of an unbroken run, with the step at `turn` (1-based) replaced by `step`. */
function script(fault?: { turn: number; step: string }): string {
	const say = (i: number) => `say: "${i ? `{{section:${IDS[i - 1]}}}>` : ""}${IDS[i]}"`;
	return `turns:\n${IDS.map((id, i) => `  ${id}:\n    - ${fault?.turn === i + 1 ? fault.step : say(i)}\n`).join("")}`;
}

afterAll(cleanupProjects);

const EVERY_TURN = IDS.map((_, i) => i + 1);

describe("a provider error at every turn", () => {
	it(`fails naming the visit, closes every session, and resumes to the full output (${TURNS} runs)`, async () => {
		const rows = await inBatches(EVERY_TURN, 5, async (turn) => {
			const p = project();
			const flow = checked(p, "ten", FLOW);
			const first = await start(p, flow, script({ turn, step: `fail: "injected provider error at turn ${turn}"` }));
			const after = await resume(p, first.out?.runDir ?? "", script());
			return { turn, first, after };
		});
		for (const { turn, first, after } of rows) {
			const id = `n${turn}`;
			expect(first.thrown).toBeUndefined();
			expect(first.out?.result).toMatchObject({
				ok: false,
				failedAt: id,
				errorKind: "provider",
				error: `${id}: provider: injected provider error at turn ${turn}`,
			});
			expect(first.host.open(), `sessions open after the failure at ${id}`).toBe(0);
			expect(first.host.scripted?.calls()).toBe(turn);
			expect(after.out.result).toMatchObject({ ok: true, output: FULL });
			expect(after.out.resumed?.life).toBe(2);
			// The turns before the fault are replayed from the journal, never asked again.
			expect(after.host.scripted?.calls(), `turns run by the resume after ${id}`).toBe(TURNS - turn + 1);
			expect(after.host.open()).toBe(0);
		}
	}, 60_000);
});

describe("a hang at every turn", () => {
	const IDLE_MS = 150;
	it(`ends by the idle bound naming the visit, closes every session, and resumes (${TURNS} runs)`, async () => {
		const rows = await inBatches(EVERY_TURN, 5, async (turn) => {
			const p = project();
			const flow = checked(p, "ten", FLOW);
			const first = await start(p, flow, script({ turn, step: "hang: true" }), { idleTimeoutMs: IDLE_MS });
			const after = await resume(p, first.out?.runDir ?? "", script());
			return { turn, first, after };
		});
		for (const { turn, first, after } of rows) {
			const id = `n${turn}`;
			expect(first.thrown).toBeUndefined();
			expect(first.out?.result).toMatchObject({
				ok: false,
				failedAt: id,
				errorKind: "idle",
				error: `${id}: idle: no sign of life for ${IDLE_MS}ms`,
			});
			expect(first.ms).toBeGreaterThanOrEqual(IDLE_MS);
			expect(first.host.open(), `sessions open after the hang at ${id}`).toBe(0);
			expect(after.out.result).toMatchObject({ ok: true, output: FULL });
			expect(after.host.scripted?.calls()).toBe(TURNS - turn + 1);
			expect(after.host.open()).toBe(0);
		}
	}, 60_000);
});

describe("a check script that never exits", () => {
	// It ignores SIGTERM, as does a grandchild, so only the SIGKILL after the grace period ends them.
	const FOREVER = [
		"echo $$ > .pi/pids",
		"sleep 300 &",
		"echo $! >> .pi/pids",
		"( trap '' TERM; sleep 300 & echo $! >> .pi/pids; wait ) &",
		"echo $! >> .pi/pids",
		"trap '' TERM",
		"while true; do sleep 1; done",
		"",
	].join("\n");
	const GRACE_MS = 300;

	it("is killed at its timeout with every process it started; the node fails `timeout` and nothing spawns after it", async () => {
		const p = project();
		p.write(".pi/checks/forever.sh", FOREVER);
		const flow = checked(
			p,
			"forever",
			flowOf(
				"forever",
				"  - id: before\n    agent: scout\n  - id: tests\n    check: .pi/checks/forever.sh\n    timeout: 1s\n  - id: after\n    agent: scout\n",
				{ before: "Look.", after: "Report." },
			),
		);
		const stage = await prepareRun(flow, { cwd: p.cwd, somebodyThere: true });
		if (!stage.ok) throw new Error(stage.faults.map((f) => f.message).join("\n"));
		const run = await start(p, flow, "turns:\n  before:\n    - say: looked\n  after:\n    - say: reported\n", {
			scripts: stage.scripts,
			check: createBashCheck({ graceMs: GRACE_MS }),
		});
		expect(run.thrown).toBeUndefined();
		expect(run.out?.result).toMatchObject({
			ok: false,
			failedAt: "tests",
			errorKind: "timeout",
			error: "tests: timeout: timed out after 1s",
		});
		// The deadline, then the grace period before SIGKILL, then at most the pipes' drain.
		expect(run.ms).toBeGreaterThanOrEqual(1_000);
		expect(run.ms).toBeLessThan(1_000 + GRACE_MS + 2_500);
		const pids = readFileSync(join(p.cwd, ".pi/pids"), "utf8").trim().split("\n").map(Number);
		expect(pids).toHaveLength(4);
		expect(await stillAlive(pids, 2_000), "processes of the check still running").toEqual([]);
		expect(run.host.scripted?.calls()).toBe(1);
		expect(run.host.open()).toBe(0);
	}, 20_000);
});

/** A journal on a disk that takes `good` entries and then fails every write, as a full disk does. */
function failingJournal(good: number): (path: string) => JournalWriter {
	return (path) => {
		const real = fileJournal(path);
		let written = 0;
		return {
			append(entry, durable) {
				if (written >= good) throw new Error(`ENOSPC: no space left on device, write (injected after ${good} entries)`);
				real.append(entry, durable);
				written++;
			},
			close: () => real.close(),
		};
	};
}

/** life_start, a start, an identity and an end per turn, run_end: every append an unbroken run makes. */
const ENTRIES = 1 + 3 * TURNS + 1;
const EVERY_ENTRY = Array.from({ length: ENTRIES }, (_, n) => n);

describe("the journal's disk failing after every entry", () => {
	async function failAt(good: number) {
		const p = project();
		const flow = checked(p, "ten", FLOW);
		return { p, first: await start(p, flow, script(), { journal: failingJournal(good) }) };
	}

	it(`closes every session and resumes from what was written to the full output (${ENTRIES} runs)`, async () => {
		const rows = await inBatches(EVERY_ENTRY, 6, async (good) => {
			const { p, first } = await failAt(good);
			// A run that threw has no outcome to name its folder: the one folder under the runs home is it.
			const runDir = first.out?.runDir ?? join(runsHome(p.cwd), readdirSync(runsHome(p.cwd))[0]);
			const after = await resume(p, runDir, script());
			return { good, first, after };
		});
		for (const { good, first, after } of rows) {
			const said = first.thrown?.message ?? first.out?.result.error ?? "";
			expect(said, `the failure after ${good} entries is not silent`).toMatch(/ENOSPC|journal/);
			expect(first.out?.result.ok ?? false).toBe(false);
			expect(first.host.open(), `sessions open after the disk failed at entry ${good}`).toBe(0);
			expect(after.out.result, `resume after the disk failed at entry ${good}`).toMatchObject({
				ok: true,
				output: FULL,
			});
			expect(after.host.open()).toBe(0);
		}
	}, 60_000);

	// Every append fails the same way, the runner's own (`life_start`, `run_end`) as much as the recorder's:
	// the run ends with a failed result, not the disk's exception; no turn starts after the record stopped;
	// result.json and usage.json are still written; and a resume continues from what the journal holds.
	// After 0 entries `life_start` fails, after 15 a turn's visit_end (the 5th turn), after 31 `run_end`.
	it("ends with a failed result naming the journal, not with the disk's exception, and spends no turn after it", async () => {
		const cases = [
			{ good: 0, turns: 0, replayed: 0 },
			{ good: 15, turns: 5, replayed: 4 },
			{ good: ENTRIES - 1, turns: TURNS, replayed: TURNS },
		];
		const rows = await Promise.all(
			cases.map(async (c) => {
				const { p, first } = await failAt(c.good);
				// The folder as the failed run left it, before the resume adds to it.
				const runDir = first.out?.runDir ?? "";
				const read = (name: string) => readFileSync(join(runDir, name), "utf8");
				const left = first.out
					? {
							journal: read("journal.jsonl").split("\n").filter(Boolean),
							result: JSON.parse(read("result.json")),
							usage: JSON.parse(read("usage.json")),
						}
					: undefined;
				const after = first.out ? await resume(p, runDir, script()) : undefined;
				return { ...c, first, left, after };
			}),
		);
		for (const { good, turns, replayed, first, left, after } of rows) {
			expect(first.thrown, `startRun threw after ${good} entries`).toBeUndefined();
			expect(first.out?.result).toMatchObject({
				ok: false,
				errorKind: "unavailable",
				error: expect.stringMatching(/^the journal could not be written \(.+\): ENOSPC: no space left on device/),
			});
			expect(first.host.scripted?.calls(), `turns started by a run whose journal failed after ${good} entries`).toBe(
				turns,
			);
			expect(first.host.open()).toBe(0);
			expect(left?.journal, "the journal holds exactly what the disk took").toHaveLength(good);
			expect(left?.result).toMatchObject({ ok: false, errorKind: "unavailable", error: first.out?.result.error });
			// usage.json is built from what was written: the life the disk cut is not recorded as ended.
			expect(left?.usage.lives.map((l: { end: string }) => l.end)).toEqual(good ? ["interrupted"] : []);
			expect(after?.out.result, `resume after the disk failed at entry ${good}`).toMatchObject({
				ok: true,
				output: FULL,
			});
			expect(after?.host.scripted?.calls(), `turns run again by the resume after ${good} entries`).toBe(
				TURNS - replayed,
			);
			expect(after?.host.open()).toBe(0);
		}
	}, 20_000);
});
