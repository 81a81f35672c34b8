/**
 * Reuse through the library (`startRun` with a `reuse` source, as `pi-flows run --reuse` passes it), on real
 * pi sessions on the scripted model: questions a person answered are reused only when the question is the
 * same, a shared conversation and `reuse: never` always run, a resumed run goes on reusing from the run its
 * snapshot names, and the report says what was reused.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { type AskCard, resolveModels, scriptedAsk } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { readRun as readReport, reportHtml } from "../../src/report/index.ts";
import { planReuse, readRun, reuseFromFolder } from "../../src/reuse/index.ts";
import { readJournal, readSnapshot, resumeRun, runsHome, type StartOptions, startRun } from "../../src/runs/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { prepareResume } from "../../src/launch/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

let project: TempProject;
beforeAll(() => {
	project = tempProject();
});
afterAll(() => project.cleanup());

function checked(name: string, text: string): CheckedFlow {
	const file = project.write(`.pi/flows/${name}.md`, text);
	const sources = { project: true };
	const c = checkFlowText(
		text,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!c.value) throw new Error(JSON.stringify(c.faults));
	return c.value;
}

async function start(flow: CheckedFlow, script: string, extra: Partial<StartOptions> = {}, input = "go") {
	const host = await scriptedHost(project, script);
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join());
	const out = await startRun(flow, input, {
		runsHome: runsHome(project.cwd),
		spawn: host.spawn,
		toolSchemas: host.toolSchemas,
		models: models.models,
		cwd: project.cwd,
		scripts: new Map(),
		somebodyThere: true,
		retryBackoffMs: 0,
		keyDir: project.agentDir,
		...extra,
	});
	if ("refused" in out) throw new Error(out.refused);
	return { ...out, calls: host.scripted?.calls() ?? 0 };
}

const from = (runDir: string) => {
	const opened = reuseFromFolder(runDir, project.agentDir);
	if (!opened.ok) throw new Error(opened.error);
	return opened.source;
};

const notes = (visits: { path: string; reuse?: { outcome: string; why?: string } }[]) =>
	Object.fromEntries(
		visits.filter((v) => v.reuse).map((v) => [v.path, v.reuse?.outcome === "ran" ? v.reuse.why : "reused"]),
	);

describe("questions", () => {
	const ASK = flowOf(
		"q",
		"  - id: pick\n    ask: Which?\n    options: [left, right]\n  - id: act\n    agent: scout\n    reads: [pick]\n",
		{ act: "Act." },
	);

	it("reuses a person's answer to the same question, never a default nobody chose", async () => {
		const flow = checked("q", ASK);
		const cards: AskCard[] = [];
		const first = await start(flow, 'turns:\n  act:\n    - say: "{{section:pick}}"\n', {
			ask: scriptedAsk({ pick: "right" }, cards),
		});
		expect(first.result.ok).toBe(true);
		const later: AskCard[] = [];
		const again = await start(flow, "turns: {}\n", {
			ask: scriptedAsk({ pick: "left" }, later),
			reuse: from(first.runDir),
		});
		expect(later).toHaveLength(0);
		expect(again.calls).toBe(0);
		expect(again.result.output).toContain('"answer": "right"');
		expect(notes(again.result.visits)).toEqual({ pick: "reused", act: "reused" });
		// The answer is journaled as this run's too, so its own resume never asks again.
		const asked = readJournal(join(again.runDir, "journal.jsonl"));
		expect(asked.ok && asked.entries.find((e) => e.type === "asked")).toMatchObject({ answer: { value: "right" } });

		const reworded = checked("q", ASK.replace("Which?", "Which way?"));
		const third = await start(reworded, 'turns:\n  act:\n    - say: "{{section:pick}}"\n', {
			ask: scriptedAsk({ pick: "left" }, later),
			reuse: from(again.runDir),
		});
		expect(later).toHaveLength(1);
		expect(notes(third.result.visits)).toEqual({ pick: "the question changed", act: "`pick`'s output changed" });

		// Unattended, the question took its default: an attended run asks it, saying why.
		const withDefault = checked(
			"q",
			ASK.replace("options: [left, right]", "options: [left, right]\n    default: left"),
		);
		const script = 'turns:\n  act:\n    - say: "{{section:pick}}"\n';
		const unattended = await start(withDefault, script, {
			ask: { somebodyThere: false, ask: async () => ({ kind: "nobody" }) },
		});
		expect(unattended.result.ok).toBe(true);
		const asking: AskCard[] = [];
		const attended = await start(withDefault, script, {
			ask: scriptedAsk({ pick: "right" }, asking),
			reuse: from(unattended.runDir),
		});
		expect(asking).toHaveLength(1);
		expect(notes(attended.result.visits)).toMatchObject({
			pick: "nobody answered it in the earlier run (it took its default)",
		});
	});
});

describe("what never reuses", () => {
	it("runs a visit that shares a conversation (`memory:`) or says `reuse: never`, and says why", async () => {
		const flow = checked(
			"kept",
			flowOf(
				"kept",
				"  - id: a\n    agent: scout\n    memory: flow\n  - id: b\n    agent: scout\n    reuse: never\n  - id: c\n    agent: scout\n",
				{ a: "A.", b: "B.", c: "C." },
			),
		);
		const script = "turns:\n  a:\n    - say: one\n  b:\n    - say: two\n  c:\n    - say: three\n";
		const first = await start(flow, script);
		const again = await start(flow, script, { reuse: from(first.runDir) });
		expect(notes(again.result.visits)).toEqual({
			a: "it shares a subagent (memory: flow) whose conversation a reused visit would not carry",
			b: "`reuse: never`",
			c: "reused",
		});
		expect(again.calls).toBe(2);
	});
});

describe("a swarm", () => {
	it("is taken whole when its goal, members and tree are unchanged, and plays when its goal changed", async () => {
		const swarmFlow = (goal: string) =>
			flowOf("sw", "  - id: survey\n    swarm: [scout, reviewer]\n    rounds: 1\n    reads: [input]\n", {
				survey: goal,
			});
		const script = 'turns:\n  survey:\n    - say: "posted"\n';
		const first = await start(checked("sw", swarmFlow("Survey it.")), script);
		expect(first.result.ok).toBe(true);
		const again = await start(checked("sw", swarmFlow("Survey it.")), "turns: {}\n", { reuse: from(first.runDir) });
		expect(again.calls).toBe(0);
		expect(again.result.output).toEqual(first.result.output);
		expect(notes(again.result.visits)).toEqual({ survey: "reused" });
		const changed = await start(checked("sw", swarmFlow("Survey it twice.")), script, { reuse: from(first.runDir) });
		expect(notes(changed.result.visits)).toEqual({ survey: "`## survey` changed" });
	});
});

describe("a resumed run, and its report", () => {
	const CHAIN = (b: string) =>
		flowOf(
			"abc",
			"  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n    reads: [a]\n  - id: c\n    agent: scout\n    reads: [b]\n",
			{ a: "A.", b, c: "C." },
		);

	it("goes on reusing from the run its snapshot names, and the report lists every decision", async () => {
		const first = await start(
			checked("abc", CHAIN("B.")),
			"turns:\n  a:\n    - say: one\n  b:\n    - say: two\n  c:\n    - say: three\n",
		);
		const reused = from(first.runDir);
		// `b` changed and fails on its first try: the run stops there, with `c` not yet decided.
		const failed = await start(checked("abc", CHAIN("B, reworded.")), "turns:\n  b:\n    - fail: rate limited\n", {
			reuse: reused,
		});
		expect(failed.result).toMatchObject({ ok: false, failedAt: "b" });
		const snapshot = readSnapshot(failed.runDir);
		expect(snapshot.ok && snapshot.value.settings.reuse).toBe(first.runDir);
		// The resume plays `b` again (it answers as the first run did), and `c`, unchanged with it, is reused.
		// Through the one resume preparation every surface uses (`pi-flows resume`, the MCP server's run_resume).
		const host = await scriptedHost(project, "turns:\n  b:\n    - say: two\n");
		const prep = await prepareResume(failed.runDir, { keyDir: project.agentDir, openHost: async () => host });
		if (!prep.ok) throw new Error(prep.error);
		const out = await resumeRun({
			runDir: failed.runDir,
			cwd: project.cwd,
			spawn: host.spawn,
			models: (f) => {
				const m = resolveModels(f, host.resolveModel, "scripted");
				return m.ok ? m.models : m.errors;
			},
			reuseFrom: prep.reuseFrom,
			...(prep.toolSchemas ? { toolSchemas: prep.toolSchemas } : {}),
			somebodyThere: true,
			inDoubt: "stop",
			retryBackoffMs: 0,
			keyDir: project.agentDir,
		});
		if ("refused" in out) throw new Error(out.refused);
		expect(out.result, JSON.stringify(out.result.visits)).toMatchObject({ ok: true, output: "three" });
		expect(host.scripted?.calls()).toBe(1);
		expect(notes(out.result.visits)).toEqual({ a: "reused", b: "`## b` changed", c: "reused" });

		const page = readReport(failed.runDir);
		if (!page.ok) throw new Error(page.error);
		const html = reportHtml(page.value);
		expect(html).toContain('<section id="reuse">');
		expect(html).toMatch(/<dt>reused<\/dt><dd>reused 2 of 3 visits \(saved [\d.k]+ tokens\) from /);
		expect(html).toContain('<tr class="ran" data-path="b"><td>b</td><td>ran</td><td>`## b` changed</td>');
	});
});

describe("the plan as data", () => {
	it("rows a caller can draw: a node asked to run again, and what reads it, which may change", async () => {
		const flow = checked(
			"plan3",
			flowOf(
				"plan3",
				"  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n    reads: [a]\n  - id: c\n    agent: scout\n    reads: [b]\n",
				{ a: "A.", b: "B.", c: "C." },
			),
		);
		const first = await start(flow, "turns:\n  a:\n    - say: one\n  b:\n    - say: two\n  c:\n    - say: three\n");
		const read = readRun(first.runDir, project.agentDir);
		if (!read.ok) throw new Error(read.error);
		const host = await scriptedHost(project, "turns: {}\n");
		const models = resolveModels(flow, host.resolveModel, "scripted");
		if (!models.ok) throw new Error(models.errors.join());
		const plan = await planReuse(flow, "go", {
			entries: read.entries,
			from: first.runDir,
			cwd: project.cwd,
			models: models.models,
			toolSchemas: host.toolSchemas,
			force: ["b"],
		});
		expect(host.scripted?.calls()).toBe(0);
		expect(plan.rows.map((r) => [r.path, r.status, r.why])).toEqual([
			["a", "reused", undefined],
			["b", "runs", "asked to run again (`b`)"],
			["c", "may-change", "it reads `b`, which runs"],
		]);
		expect(plan).toMatchObject({ visits: 3, reused: 1, runs: 1, mayChange: 1 });
		expect(plan.runsTokens).toBe(plan.rows[1].tokens);
		expect(plan.runsTokens).toBeGreaterThan(0);
	});
});
