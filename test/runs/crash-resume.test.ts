/**
 * The durability proof: the CLI is killed (SIGKILL) at 20 different points of a scripted multi-node run;
 * each resume finishes with the same final output as an uninterrupted run, and across lives the journal
 * shows every visit ended exactly once.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
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
let totalLines = 0;

function cli(args: string[]) {
	return spawnSync(process.execPath, [join(PACKAGE_ROOT, "bin/pi-flows.js"), ...args], {
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
		totalLines = readFileSync(join(dir, "journal.jsonl"), "utf8").split("\n").length - 1;
		expect(baseline).toContain("final answer from:");
	});

	it("resumes to the same answer after a SIGKILL at each of 20 points, each visit ended once", async () => {
		// Twenty points spread over the run, from its first visit to just before its end.
		const points = Array.from({ length: 20 }, (_, i) => 2 + Math.floor((i * (totalLines - 5)) / 19));
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
		for (let i = 0; i < points.length; i += 4) await Promise.all(points.slice(i, i + 4).map(one));
		for (const o of outcomes) {
			expect(o.resumed, `killed at journal line ${o.at}`).toBe(baseline);
			expect(o.once, `killed at journal line ${o.at}`).toBe(true);
		}
		// Most kills land mid-run: the resume is a second life of the same run folder.
		expect(outcomes.filter((o) => o.lives === 2).length).toBeGreaterThanOrEqual(15);
	}, 240_000);
});
