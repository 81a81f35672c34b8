/**
 * The durability proof: the CLI is killed (SIGKILL) at each distinct state of a scripted multi-node run's
 * journal (read from an uninterrupted run: a life begun, a turn under way, an answer tool called, a map's
 * items fixed, two items in flight, an item ended beside a running one, every item ended before the map,
 * a loop between iterations, a loop ended, the last visit ended before the run's end); each resume finishes
 * with the same final output as the uninterrupted run, and across lives the journal shows every visit
 * ended exactly once. `PI_FLOWS_CRASH_SWEEP=1` (`npm run test:crash-sweep`) adds 20 kill points spread
 * evenly over the run, the sweep this file ran in `npm test` before the distinct states were picked.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { journalState, readJournal } from "../../src/runs/index.ts";
import { cliChild, killWhen } from "../helpers/kill.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

const FLOW = `---
name: durable
description: a multi-node flow for crash tests
input: string
nodes:
  - id: plan
    agent: planner
    reads: [input]
    output: { items: [string] }
  - id: work
    map-from: plan.output.items
    max: 4
    concurrency: 2
    do:
      - id: act
        agent: scout
        reads: [item]
  - id: polish
    loop: check.output.done
    max: 3
    do:
      - id: draft
        agent: synthesiser
        reads: [work]
      - id: check
        agent: reviewer
        output: { done: boolean }
  - id: answer
    agent: synthesiser
    reads: [input, work, polish]
---

## plan
Plan.

## act
Act on the item under \`item\`.

## draft
Draft.

## check
Check.

## answer
Answer.
`;

const SCRIPT = `latencyMs: 25
turns:
  plan:
    - call: submit
      args: { items: [alpha, beta, gamma, delta] }
  act:
    - say: "did {{section:item}}"
  draft:
    - say: draft
  "polish#1/check":
    - call: submit
      args: { done: false }
  "polish#2/check":
    - call: submit
      args: { done: true }
  answer:
    - say: "final answer from: {{section:work|lines:40}}"
`;

let project: TempProject;
let baseline: string;
let baselineJournal: JournalLine[] = [];

/** A journal line of the uninterrupted run, as far as picking kill points needs. */
interface JournalLine {
	type: string;
	path?: string;
	kind?: string;
}

/**
 * The journal line counts to kill at, one per distinct state of the run named in the header, each the
 * first line of the uninterrupted run at which that state holds (the kill lands at that line or a few
 * lines after it, as the run goes on writing while the journal is polled).
 */
function distinctPoints(lines: readonly JournalLine[]): Map<string, number> {
	const open = new Set<string>();
	const items = (paths: Iterable<string>) => [...paths].filter((p) => /^work\[\d+\]\//.test(p)).length;
	const points = new Map<string, number>();
	const mark = (state: string, at: number) => {
		if (!points.has(state)) points.set(state, at);
	};
	lines.forEach((line, i) => {
		const at = i + 1;
		if (line.type === "visit_start" && line.path) open.add(line.path);
		if (line.type === "visit_end" && line.path) open.delete(line.path);
		if (line.type === "life_start") mark("a life begun, no visit", at);
		if (line.type === "identity" && line.path === "plan") mark("a turn under way", at);
		if (line.type === "tool_call") mark("an answer tool called, its visit open", at);
		if (line.type === "map_items") mark("a map's items fixed, none started", at);
		if (line.type === "visit_start" && items(open) === 2) mark("two map items in flight", at);
		if (line.type === "visit_end" && line.path?.startsWith("work[") && items(open) === 1)
			mark("an item ended beside a running one", at);
		if (lines[i + 1]?.type === "visit_end" && lines[i + 1]?.path === "work") mark("every item ended, the map open", at);
		if (line.type === "visit_end" && line.path === "polish#1/check") mark("a loop between iterations", at);
		if (line.type === "visit_end" && line.kind === "loop") mark("a loop ended, the next node not begun", at);
		if (lines[i + 1]?.type === "run_end") mark("the last visit ended, the run not", at);
	});
	return points;
}

function cli(args: string[]) {
	return spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: project.cwd,
		env: project.env,
		encoding: "utf8",
		timeout: 60_000,
	});
}

function runs(home = ".pi/runs"): string[] {
	const dir = join(project.cwd, home);
	return existsSync(dir) ? readdirSync(dir).map((d) => join(dir, d)) : [];
}

/** The CLI, asynchronously (kills run several at a time). */
const cliAsync = (args: string[]) => cliChild(project, args);

/** Starts a run in its own runs folder and SIGKILLs it once its journal holds `lines` lines. */
function killAt(lines: number): Promise<string> {
	const held = (journal: string) => journal.split("\n").length - 1;
	return killWhen(
		project,
		["durable", "go", "--script", "s.yaml", "--project"],
		`.pi/runs-${lines}`,
		(j) => held(j) >= lines,
		{
			pollMs: 2,
			endedIsOk: true,
		},
	);
}

beforeAll(() => {
	project = tempProject();
	project.write(".pi/flows/durable.md", FLOW);
	project.write("s.yaml", SCRIPT);
	const r = cli(["run", "durable", "go", "--script", "s.yaml", "--project"]);
	expect(r.status, r.stderr).toBe(0);
	baseline = r.stdout;
});
afterAll(() => project.cleanup());

describe("crash-safe resume", () => {
	it("an uninterrupted run ends every visit exactly once", () => {
		const [dir] = runs();
		const j = readJournal(join(dir, "journal.jsonl"));
		if (!j.ok) throw new Error(j.error);
		const state = journalState(j.entries);
		expect([...state.endedCount.values()].every((n) => n === 1)).toBe(true);
		expect(state.endedCount.size).toBe(12);
		baselineJournal = readFileSync(join(dir, "journal.jsonl"), "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l) as JournalLine);
		expect(baseline).toContain("final answer from:");
		// Every state the kills are meant to land in is one this run passes through.
		expect(distinctPoints(baselineJournal).size).toBe(10);
	});

	it("resumes to the same answer after a SIGKILL in each distinct journal state, each visit ended once", async () => {
		const totalLines = baselineJournal.length;
		const distinct = [...distinctPoints(baselineJournal).values()];
		// The full sweep: twenty points spread over the run, from its first visit to just before its end.
		const sweep = process.env.PI_FLOWS_CRASH_SWEEP
			? Array.from({ length: 20 }, (_, i) => 2 + Math.floor((i * (totalLines - 5)) / 19))
			: [];
		const points = [...new Set([...distinct, ...sweep])];
		const outcomes: { at: number; resumed: string; once: boolean; lives: number }[] = [];
		const one = async (at: number) => {
			const dir = await killAt(at);
			const r = await cliAsync(["resume", dir, "--take-lock", "--in-doubt", "rerun"]);
			const j = readJournal(join(dir, "journal.jsonl"));
			if (!j.ok) throw new Error(j.error);
			const state = journalState(j.entries);
			outcomes.push({
				at,
				resumed: r.stdout,
				once: [...state.endedCount.values()].every((n) => n === 1),
				lives: state.lives,
			});
			expect(r.status, `${r.stderr}\n(killed at journal line ${at})`).toBe(0);
		};
		for (let i = 0; i < points.length; i += 5) await Promise.all(points.slice(i, i + 5).map(one));
		expect(outcomes).toHaveLength(points.length);
		for (const o of outcomes) {
			expect(o.resumed, `killed at journal line ${o.at}`).toBe(baseline);
			expect(o.once, `killed at journal line ${o.at}`).toBe(true);
		}
		// Most kills land mid-run (the last states are a few milliseconds from the end, so a kill may miss
		// them): the resume is a second life of the same run folder.
		expect(outcomes.filter((o) => o.lives === 2).length).toBeGreaterThanOrEqual(Math.ceil(points.length * 0.75));
	}, 240_000);
});
