import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRun, runModel } from "../../src/report/index.ts";
import { type JournalEntry, journalState, readJournal } from "../../src/runs/index.ts";
import { cliChild, killWhen } from "../helpers/kill.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

const FLOW = `---
name: area
description: a 12-item map for crash tests
input: string
nodes:
  - id: look
    map: [a, b, c, d, e, f, g, h, i, j, k, l]
    concurrency: 3
    do:
      - id: scout
        agent: scout
        reads: [item]
  - id: answer
    agent: synthesiser
    reads: [look]
---

## scout
Look at the item under \`item\`.

## answer
Answer.
`;

const SCRIPT = 'latencyMs: 120\nturns:\n  scout:\n    - say: "saw {{section:item}}"\n  answer:\n    - say: done\n';

let project: TempProject;
let clean: string;

const cli = (args: string[]) => cliChild(project, args);

function folderOf(home: string): string {
	const dir = join(project.cwd, home);
	return join(dir, readdirSync(dir)[0]);
}

function journal(dir: string): JournalEntry[] {
	const read = readJournal(join(dir, "journal.jsonl"));
	if (!read.ok) throw new Error(read.error);
	return read.entries;
}

/** Runs the flow in its own runs folder and SIGKILLs it once `ended` map items have ended. */
function crashAfter(home: string, ended: number): Promise<string> {
	const scouts = (journal: string) =>
		journal.split("\n").filter((l) => l.includes('"visit_end"') && l.includes("/scout")).length;
	return killWhen(project, ["area", "go", "--script", "s.yaml", "--project"], home, (j) => scouts(j) >= ended);
}

/** What the report says, in numbers: visits per node address, and the bars of each life. */
function reportFigures(dir: string) {
	const read = readRun(dir);
	if (!read.ok) throw new Error(read.error);
	const model = runModel(read.value);
	const nodes = Object.fromEntries([...model.nodes].map(([a, n]) => [a, { state: n.state, visits: n.visits }]));
	const bars = model.visits.filter((v) => v.state === "done").map((v) => `${v.life} ${v.path}`);
	return { nodes, bars, lives: model.lives.map((l) => l.outcome), problems: read.value.problems };
}

beforeAll(async () => {
	project = tempProject();
	project.write(".pi/flows/area.md", FLOW);
	project.write("s.yaml", SCRIPT);
	const r = await cli(["run", "area", "go", "--script", "s.yaml", "--project", "--runs-dir", ".pi/runs-clean"]);
	expect(r.status, r.stderr).toBe(0);
	clean = folderOf(".pi/runs-clean");
}, 60_000);
afterAll(() => project.cleanup());

describe("after a SIGKILL", () => {
	it("resumes without ceremony, and the report shows every life with every visit, as a clean run counts them", async () => {
		const dir = await crashAfter(".pi/runs-kill", 8);
		const lock = JSON.parse(readFileSync(join(dir, "lock.json"), "utf8")) as { pid: number };
		const r = await cli(["resume", dir]);
		expect(r.status, r.stderr).toBe(0);
		const said = r.stderr.split("\n").filter((l) => l.includes("took over the lock"));
		expect(said).toEqual([
			expect.stringMatching(
				new RegExp(`^pi-flows: took over the lock of pid ${lock.pid} \\(started .*\\), which is gone$`),
			),
		]);
		const crashed = reportFigures(dir);
		const whole = reportFigures(clean);
		expect(crashed.nodes).toEqual(whole.nodes);
		expect(crashed.nodes["look/scout"]).toEqual({ state: "done", visits: 12 });
		expect(crashed.lives).toEqual(["interrupted", "ok"]);
		// Every visit the journal ended has its bar, in the life it ended in.
		const ended = journal(dir).flatMap((e) => (e.type === "visit_end" ? [`${e.life} ${e.path}`] : []));
		expect(new Set(crashed.bars)).toEqual(new Set(ended));
		// The kill may fall between the 8th visit's journal line and its seal: the resume drops that unsealed
		// line (and says so), and the visit runs again in life 2. Nothing else of life 1 is lost.
		expect(crashed.bars.filter((b) => b.startsWith("1 ") && b.includes("/scout")).length).toBeGreaterThanOrEqual(7);
		// The same visits, lives apart, as the clean run's.
		expect(crashed.bars.map((b) => b.slice(2)).sort()).toEqual(whole.bars.map((b) => b.slice(2)).sort());
	}, 120_000);

	it("draws the same report with the events file gone, saying so once", async () => {
		const dir = await crashAfter(".pi/runs-noevents", 8);
		expect((await cli(["resume", dir])).status).toBe(0);
		rmSync(join(dir, "events.jsonl"));
		const crashed = reportFigures(dir);
		expect(crashed.nodes).toEqual(reportFigures(clean).nodes);
		expect(crashed.problems.filter((p) => p.includes("events.jsonl"))).toHaveLength(1);
	}, 120_000);

	it("lets exactly one of two resumes started together run", async () => {
		const dir = await crashAfter(".pi/runs-race", 4);
		const [a, b] = await Promise.all([cli(["resume", dir]), cli(["resume", dir])]);
		const statuses = [a.status, b.status].sort();
		expect(statuses, `${a.stderr}\n---\n${b.stderr}`).toEqual([0, 2]);
		const loser = a.status === 2 ? a : b;
		expect(loser.stderr).toMatch(
			/cannot resume: (the run is in use by pid \d+|another process is taking over|the run ended well)/,
		);
		const entries = journal(dir);
		expect(entries.filter((e) => e.type === "life_start")).toHaveLength(2);
		const state = journalState(entries);
		expect(state.end?.ok).toBe(true);
		const ends = entries.flatMap((e) => (e.type === "visit_end" ? [e.path] : []));
		expect(new Set(ends).size).toBe(ends.length);
	}, 120_000);
});
