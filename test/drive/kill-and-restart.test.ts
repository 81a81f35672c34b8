/**
 * The driver is as durable as a flow run: `pi-flows drive` is SIGKILLed before, during and after each
 * `finish` of a three-turn chain (and once right after a mid-turn checkpoint), started again, and must
 * finish the chain without running any turn whose handoff was recorded, saying where it picked up.
 *
 * Each turn appends its name to work.log through the real bash tool, so a turn run twice shows. The kills
 * come from inside the turn (a bash call that SIGKILLs the driver, once) or from the test watching the
 * journal, so every point is hit exactly, not by timing.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentPointerPath } from "../../src/drive/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

type Point = "before" | "during" | "after" | "checkpoint";

// Kills the driver once: the marker makes the second life's replay of the same step harmless.
const KILL = "if [ ! -e .killed ]; then touch .killed; kill -9 $(cat driver.pid); sleep 5; fi";
const waitFor = (text: string) =>
	`for i in $(seq 1 1200); do grep -q '${text}' HANDOFF.md 2>/dev/null && break; sleep 0.05; done`;

/** The script of a three-turn chain with a kill at `point` of turn `k`. */
function script(point: Point, k: number): string {
	const turns: Record<string, unknown[]> = {};
	for (let n = 1; n <= 3; n++) {
		const work = `echo turn${n} >> work.log`;
		const here = n === k;
		const finish = {
			name: "finish",
			args:
				n < 3
					? { status: "partial", summary: `turn ${n} done`, next_task: `do turn ${n + 1}` }
					: { status: "done", summary: "turn 3 done" },
		};
		// After turn k's finish the next turn waits a moment, so a kill from the test lands between the two.
		const pause = point === "after" && n === k + 1 ? { delay: 4000 } : {};
		const steps: unknown[] = [
			{ call: "bash", args: { command: here && point === "before" ? `${work}; ${KILL}` : work }, ...pause },
		];
		if (here && point === "checkpoint") {
			steps.push({
				call: "checkpoint",
				args: { status: "in-progress", summary: `turn ${n} half way`, next_task: `finish turn ${n}`, reset: "none" },
			});
			steps.push({ call: "bash", args: { command: `${waitFor("half way")}; ${KILL}` } });
		}
		// During: finish and a call that waits for the document on disk, then kills, in one batch.
		steps.push(
			here && point === "during"
				? { calls: [finish, { name: "bash", args: { command: `${waitFor(`turn ${n} done`)}; ${KILL}` } }] }
				: { call: finish.name, args: finish.args },
		);
		turns[`turn${n}`] = steps;
	}
	return JSON.stringify({ turns });
}

const projects: TempProject[] = [];
afterAll(() => {
	for (const p of projects) p.cleanup();
});

function start(project: TempProject): ChildProcess {
	const child = spawn(process.execPath, [cliBin(), "drive", "TASK.md", "--script", "s.yaml"], {
		cwd: project.cwd,
		env: project.env,
	});
	writeFileSync(join(project.cwd, "driver.pid"), String(child.pid));
	return child;
}

function finished(
	child: ChildProcess,
): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
	let stderr = "";
	child.stderr?.on("data", (d) => (stderr += d));
	child.stdout?.resume();
	return new Promise((resolve) => child.once("exit", (status, signal) => resolve({ status, signal, stderr })));
}

/** The drive's journal, once the pointer names it. */
function journalText(project: TempProject): string {
	const pointer = currentPointerPath(project.cwd);
	if (!existsSync(pointer)) return "";
	const { logDir } = JSON.parse(readFileSync(pointer, "utf8")) as { logDir: string };
	const file = join(logDir, "journal.jsonl");
	return existsSync(file) ? readFileSync(file, "utf8") : "";
}

async function scenario(point: Point, k: number) {
	const project = tempProject();
	projects.push(project);
	project.write("TASK.md", "Write three notes, one per turn.\n");
	project.write("s.yaml", script(point, k));
	const first = start(project);
	const firstEnd = finished(first);
	let watch: ReturnType<typeof setInterval> | undefined;
	if (point === "after") {
		watch = setInterval(() => {
			if (journalText(project).includes(`"type":"turn_end","n":${k},`)) {
				clearInterval(watch);
				first.kill("SIGKILL");
			}
		}, 3);
	}
	const life1 = await firstEnd;
	clearInterval(watch);
	const second = finished(start(project));
	const life2 = await second;
	const log = readFileSync(join(project.cwd, "work.log"), "utf8").trim().split("\n");
	const count = (n: number) => log.filter((l) => l === `turn${n}`).length;
	return { project, life1, life2, count, journal: journalText(project) };
}

const POINTS: [Point, number][] = [1, 2, 3].flatMap((k) =>
	(["before", "during", "after"] as Point[]).map((p): [Point, number] => [p, k]),
);

describe("a driver killed with SIGKILL and started again", () => {
	it("finishes the chain from where it stood at every point around each finish, never redoing a recorded turn", async () => {
		const results: { point: Point; k: number; r: Awaited<ReturnType<typeof scenario>> }[] = [];
		for (let i = 0; i < POINTS.length; i += 3) {
			const batch = POINTS.slice(i, i + 3);
			results.push(
				...(await Promise.all(batch.map(async ([point, k]) => ({ point, k, r: await scenario(point, k) })))),
			);
		}
		for (const { point, k, r } of results) {
			const at = `killed ${point} turn ${k}'s finish`;
			const killed = r.life1.signal === "SIGKILL";
			expect(r.life2.status, `${at}\n${r.life2.stderr}`).toBe(0);
			expect(readFileSync(join(r.project.cwd, "HANDOFF.md"), "utf8"), at).toContain("## Status\ndone");
			for (let n = 1; n <= 3; n++) {
				// Only a turn cut off before its finish runs twice; a recorded handoff is never redone.
				expect(r.count(n), `${at}: turn ${n} ran ${r.count(n)} time(s)`).toBe(point === "before" && n === k ? 2 : 1);
			}
			if (!killed) {
				// The last turn's end raced the kill and the chain completed: a second run does nothing.
				expect(point === "after" && k === 3, at).toBe(true);
				expect(r.life2.stderr).toContain("already completed");
				continue;
			}
			if (point === "before")
				expect(r.life2.stderr, at).toContain(`turn ${k} was cut off before it recorded a handoff and runs again`);
			// Turn 3's finish was `done` and on disk: the chain was complete when the driver died.
			else if (k === 3) expect(r.life2.stderr, at).toContain("already completed");
			else if (point === "during") {
				expect(r.life2.stderr, at).toMatch(
					new RegExp(
						`resuming: ${k} turn\\(s\\) recorded in .*; turn ${k + 1} starts from (HANDOFF\\.md \\(saved just before the stop\\)|the recorded handoff), finish partial`,
					),
				);
			} else {
				// The kill fell after turn k's end: before turn k+1 started, or in its first moment.
				const next = `turn ${k + 1} (starts from the recorded handoff, finish partial|was cut off before it recorded a handoff and runs again)`;
				expect(r.life2.stderr, at).toMatch(new RegExp(`resuming: ${k} turn\\(s\\) recorded in .*; ${next}`));
			}
		}
	}, 400_000);

	it("keeps a mid-turn checkpoint on disk, and the restarted turn continues from it with only the task and that document", async () => {
		const r = await scenario("checkpoint", 2);
		expect(r.life1.signal).toBe("SIGKILL");
		expect(r.life2.status, r.life2.stderr).toBe(0);
		expect(r.life2.stderr).toMatch(/turn 3 starts from (HANDOFF\.md|the recorded handoff), checkpoint in-progress/);
		expect(r.count(1)).toBe(1);
		expect(r.count(2)).toBe(1);
		// The turn after the checkpoint carries the checkpoint and turn 2's task, and nothing older.
		const turn3 = r.journal
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l))
			.find((e) => e.type === "turn_start" && e.n === 3);
		expect(turn3?.task).toBe("do turn 2");
	}, 120_000);
});
