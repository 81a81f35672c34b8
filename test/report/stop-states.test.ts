/**
 * How the report colours a visit that ended in a stop: a real run on the scripted model whose agent
 * finishes `blocked` (the run stops there) draws that node as "running when cut", the state a resume picks
 * up, and the node after it as never reached; a plain failure beside it stays failed. The expectation is
 * written out by hand, not read from the failure table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { readRun, reportHtml, runModel } from "../../src/report/index.ts";
import { runsHome, startRun } from "../../src/runs/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { one, parseHtml, select } from "./html.ts";

const FLOW = `---
name: stuck
description: A scout that fails is absorbed, then a worker finishes blocked.
input: string
nodes:
  - id: look
    agent: scout
    on-fail: continue
  - id: work
    agent: worker
    handoff: { watermark: 0.3 }
  - id: after
    agent: synthesiser
---

## look

Look around.

## work

Do the work.

## after

Report.
`;

const SCRIPT = `contextWindow: 8000
turns:
  look:
    - fail: the scout lost its way
  work:
    - call: read
      args: { path: big.txt }
    - call: finish
      args: { status: blocked, summary: stuck, blocked: the API key is missing }
  after:
    - say: never
`;

let project: TempProject;
let runDir: string;

beforeAll(async () => {
	project = tempProject();
	project.write("big.txt", `${"heron ".repeat(1500)}\n`);
	const file = project.write(".pi/flows/stuck.md", FLOW);
	const sources = { project: true };
	const checked = checkFlowText(
		FLOW,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value) throw new Error(`the flow does not check: ${JSON.stringify(checked.faults)}`);
	const host = await scriptedHost(project, SCRIPT);
	const models = resolveModels(checked.value, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const started = await startRun(checked.value, "go", {
		runsHome: runsHome(project.cwd),
		spawn: host.spawn,
		models: models.models,
		cwd: project.cwd,
		scripts: new Map(),
		somebodyThere: false,
		retryBackoffMs: 0,
		keyDir: project.agentDir,
	});
	if ("refused" in started) throw new Error(started.refused);
	expect(started.result).toMatchObject({ ok: false, errorKind: "blocked" });
	runDir = started.runDir;
}, 60_000);
afterAll(() => project.cleanup());

describe("a run that ends blocked", () => {
	it("draws the blocked node as cut, the absorbed failure as failed, and the rest as never reached", () => {
		const read = readRun(runDir);
		if (!read.ok) throw new Error(read.error);
		const model = runModel(read.value);
		expect(model.visits.map((v) => [v.path, v.state])).toEqual([
			["look", "failed"],
			["work", "cut"],
		]);
		expect(model.nodes.get("work")).toEqual({ state: "cut", visits: 1, failed: 0, cut: 1 });
		const graph = one(parseHtml(reportHtml(read.value)), "svg.graph");
		const states = Object.fromEntries(
			select(graph, "rect.node").map((s) => [s.attrs["data-node"], s.attrs["data-state"]]),
		);
		expect(states).toEqual({ look: "failed", work: "cut", after: "never" });
	});

	it("reads the kind from the event, not from its words", () => {
		const read = readRun(runDir);
		if (!read.ok) throw new Error(read.error);
		// The same events with the message reworded: a kind is data, so the state does not move.
		const events = read.value.events.map((e) =>
			e.type === "node_end" && e.error ? { ...e, error: `reworded: ${e.error}` } : e,
		);
		const model = runModel({ ...read.value, events, journal: [] });
		expect(model.visits.map((v) => [v.path, v.state])).toEqual([
			["look", "failed"],
			["work", "cut"],
		]);
	});
});
