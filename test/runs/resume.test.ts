import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { type AskCard, resolveModels, scriptedAsk } from "../../src/engine/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { readJournal, type ResumeOptions, runsHome, type StartOptions, startRun } from "../../src/runs/index.ts";
import { resumeScripted, scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

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

async function start(flow: CheckedFlow, script: string, extra: Partial<StartOptions> = {}) {
	const host = await scriptedHost(project, script);
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error();
	const out = await startRun(flow, "go", {
		runsHome: runsHome(project.cwd),
		spawn: host.spawn,
		models: models.models,
		cwd: project.cwd,
		scripts: new Map(),
		somebodyThere: true,
		retryBackoffMs: 0,
		...extra,
	});
	if ("refused" in out) throw new Error(out.refused);
	return out;
}

const resume = (runDir: string, script: string, extra: Partial<ResumeOptions> = {}) =>
	resumeScripted(project, runDir, script, extra);

describe("resume", () => {
	it("replays ended visits and never asks an answered question again", async () => {
		const flow = checked(
			"q",
			flowOf(
				"q",
				"  - id: pick\n    ask: Which?\n    options: [left, right]\n  - id: act\n    agent: scout\n    reads: [pick]\n",
				{ act: "Act." },
			),
		);
		const cards: AskCard[] = [];
		const first = await start(flow, "turns:\n  act:\n    - fail: down\n", {
			ask: scriptedAsk({ pick: "right" }, cards),
		});
		expect(first.result).toMatchObject({ ok: false, failedAt: "act" });
		expect(cards).toHaveLength(1);
		const later: AskCard[] = [];
		const { out, host } = await resume(first.runDir, 'turns:\n  act:\n    - say: "{{task}}"\n', {
			ask: scriptedAsk({ pick: "left" }, later),
		});
		if ("refused" in out) throw new Error(out.refused);
		expect(later).toHaveLength(0);
		expect(out.result.ok).toBe(true);
		expect(out.result.output).toContain('"answer": "right"');
		expect(host.scripted?.calls()).toBe(1);
		expect(out.resumed?.life).toBe(2);
	});

	it("refuses a run that ended well, or failed by the flow's own decision", async () => {
		const flow = checked("one", flowOf("one", "  - id: a\n    agent: scout\n", { a: "A." }));
		const done = await start(flow, "turns:\n  a:\n    - say: ok\n");
		expect((await resume(done.runDir, "turns: {}\n")).out).toMatchObject({
			ok: false,
			refused: expect.stringContaining("ended well"),
		});
		const loop = checked(
			"cap",
			flowOf(
				"cap",
				"  - id: l\n    loop: r.output.ok\n    max: 1\n    do:\n      - id: r\n        agent: reviewer\n        output: { ok: boolean }\n",
				{ r: "R." },
			),
		);
		const capped = await start(loop, "turns:\n  r:\n    - call: submit\n      args: { ok: false }\n");
		expect((await resume(capped.runDir, "turns: {}\n")).out).toMatchObject({
			ok: false,
			refused: expect.stringContaining("unconverged"),
		});
	});

	it("says a turn cut after a write is in doubt, and reruns it only when told", async () => {
		const flow = checked("w", flowOf("w", "  - id: edit\n    agent: worker\n", { edit: "Edit." }));
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 400);
		const cut = await start(
			flow,
			"turns:\n  edit:\n    - call: write\n      args: { path: out.txt, content: half }\n    - hang: true\n",
			{ signal: controller.signal },
		);
		expect(cut.result).toMatchObject({ ok: false, errorKind: "stopped" });
		const refused = await resume(cut.runDir, "turns:\n  edit:\n    - say: redone\n");
		expect(refused.out).toMatchObject({ ok: false, refused: expect.stringContaining("in doubt: edit") });
		const rerun = await resume(cut.runDir, "turns:\n  edit:\n    - say: redone\n", { inDoubt: "rerun" });
		if ("refused" in rerun.out) throw new Error(rerun.out.refused);
		expect(rerun.out.result).toMatchObject({ ok: true, output: "redone" });
		expect(rerun.out.resumed?.rerun).toEqual(["edit"]);
	});

	it("takes a dead lock of this host by itself, saying so in one line", async () => {
		const flow = checked(
			"one",
			flowOf("one", "  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n", { a: "A.", b: "B." }),
		);
		const failed = await start(flow, "turns:\n  a:\n    - say: ok\n  b:\n    - fail: down\n");
		writeFileSync(
			join(failed.runDir, "lock.json"),
			JSON.stringify({ pid: 999_999, host: (await import("node:os")).hostname(), startedAt: "then" }),
		);
		const taken = await resume(failed.runDir, "turns:\n  b:\n    - say: ok\n");
		expect(taken.out).toMatchObject({
			result: { ok: true },
			resumed: { notes: [expect.stringMatching(/^took over the lock of pid 999999 .*which is gone$/)] },
		});
		expect(existsSync(join(failed.runDir, "lock.json"))).toBe(false);
	});

	it("refuses a lock of a live process or another host unless told (--take-lock)", async () => {
		const flow = checked(
			"one",
			flowOf("one", "  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n", { a: "A.", b: "B." }),
		);
		const failed = await start(flow, "turns:\n  a:\n    - say: ok\n  b:\n    - fail: down\n");
		writeFileSync(
			join(failed.runDir, "lock.json"),
			JSON.stringify({ pid: 4242, host: "elsewhere", startedAt: "then" }),
		);
		expect((await resume(failed.runDir, "turns:\n  b:\n    - say: ok\n")).out).toMatchObject({
			ok: false,
			refused: expect.stringContaining("on elsewhere"),
		});
		writeFileSync(
			join(failed.runDir, "lock.json"),
			JSON.stringify({ pid: process.ppid, host: (await import("node:os")).hostname(), startedAt: "now" }),
		);
		expect((await resume(failed.runDir, "turns:\n  b:\n    - say: ok\n")).out).toMatchObject({
			ok: false,
			refused: expect.stringContaining(`in use by pid ${process.ppid}`),
		});
		const taken = await resume(failed.runDir, "turns:\n  b:\n    - say: ok\n", { takeLock: true });
		expect(taken.out).toMatchObject({
			result: { ok: true },
			resumed: { notes: [expect.stringContaining("--take-lock")] },
		});
	});

	it("reads a lock file that is not JSON and a torn last journal line as what they are, once each, and goes on", async () => {
		const flow = checked(
			"one",
			flowOf("one", "  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n", { a: "A.", b: "B." }),
		);
		const failed = await start(flow, "turns:\n  a:\n    - say: ok\n  b:\n    - fail: down\n");
		writeFileSync(join(failed.runDir, "lock.json"), '{"pid": 12');
		appendFileSync(join(failed.runDir, "journal.jsonl"), '{"type":"visit_start","life":1,"pa');
		const { out } = await resume(failed.runDir, "turns:\n  b:\n    - say: ok\n");
		if ("refused" in out) throw new Error(out.refused);
		expect(out.result.ok).toBe(true);
		expect(out.resumed?.notes).toEqual([
			expect.stringContaining("was not a lock (not JSON)"),
			expect.stringContaining("last line was cut"),
		]);
		// The journal reads whole again: the torn fragment did not glue itself to the new life's first line.
		const again = readJournal(join(failed.runDir, "journal.jsonl"));
		expect(again.ok && again.torn).toBe(false);
	});

	it("runs the snapshot, not the disk, and says the flow changed", async () => {
		const text = flowOf("e", "  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n", { a: "A.", b: "B." });
		const flow = checked("e", text);
		const failed = await start(flow, "turns:\n  a:\n    - say: ok\n  b:\n    - fail: down\n");
		project.write(".pi/flows/e.md", text.replace("## b\n\nB.", "## b\n\nSomething else entirely."));
		const { out } = await resume(failed.runDir, 'turns:\n  b:\n    - say: "{{task}}"\n');
		if ("refused" in out) throw new Error(out.refused);
		expect(out.result.output).toBe("B.");
		expect(out.resumed?.changed).toContain("e changed on disk");
	});

	it("continues a run stopped by its budget once the budget is raised", async () => {
		const flow = checked(
			"b",
			flowOf("b", "  - id: a\n    agent: scout\n  - id: c\n    agent: scout\n", { a: "A.", c: "C." }),
		);
		const stopped = await start(flow, "turns:\n  '*':\n    - say: ok\n", { budget: { turns: 1 } });
		expect(stopped.result).toMatchObject({ ok: false, errorKind: "budget" });
		expect((await resume(stopped.runDir, "turns:\n  '*':\n    - say: ok\n")).out).toMatchObject({
			result: { ok: false, errorKind: "budget" },
		});
		const raised = await resume(stopped.runDir, "turns:\n  '*':\n    - say: ok\n", { budget: { turns: 5 } });
		expect(raised.out).toMatchObject({ result: { ok: true } });
		expect(raised.host.scripted?.calls()).toBe(1);
	});

	it("restores a shared subagent from its pi session, so a resumed pair keeps its conversation", async () => {
		const flow = checked(
			"pair",
			flowOf(
				"pair",
				"  - id: one\n    agent: scout\n    memory: flow\n  - id: two\n    agent: scout\n    memory: flow\n",
				{ one: "One.", two: "Two." },
			),
		);
		const failed = await start(flow, 'turns:\n  one:\n    - say: "first answer"\n  two:\n    - fail: down\n');
		expect(failed.result).toMatchObject({ ok: false, failedAt: "two" });
		const { out } = await resume(failed.runDir, 'turns:\n  two:\n    - say: "saw {{messages}} messages"\n');
		if ("refused" in out) throw new Error(out.refused);
		const fresh = checked("fresh", flowOf("fresh", "  - id: two\n    agent: scout\n", { two: "Two." }));
		const alone = await start(fresh, 'turns:\n  two:\n    - say: "saw {{messages}} messages"\n');
		const count = (text: unknown) => Number(/saw (\d+) messages/.exec(String(text))?.[1]);
		// Restored: one's task and answer and two's failed try come before two's task again.
		expect(count(out.result.output)).toBeGreaterThanOrEqual(count(alone.result.output) + 3);
	});
});

describe("end-of-run files", () => {
	it("reports a result.json or usage.json it could not write, and still returns the result", async () => {
		const flow = checked("one", flowOf("one", "  - id: a\n    agent: scout\n", { a: "A." }));
		const home = runsHome(project.cwd);
		let blocked = false;
		// A directory where the file goes: the atomic rename onto it fails, as a full or read-only disk would.
		const onEvent = () => {
			if (blocked) return;
			blocked = true;
			const dir = join(home, readdirSync(home)[0]);
			for (const name of ["result.json", "usage.json"]) mkdirSync(join(dir, name, "blocker"), { recursive: true });
		};
		const out = await start(flow, "turns:\n  a:\n    - say: fine\n", { onEvent });
		expect(out.result).toMatchObject({ ok: true, output: "fine" });
		expect(out.unwritten).toHaveLength(2);
		expect(out.unwritten?.[0]).toMatch(/^usage\.json: /);
		expect(out.unwritten?.[1]).toMatch(/^result\.json: /);
	});

	it("has nothing to report when every file was written", async () => {
		const flow = checked("one", flowOf("one", "  - id: a\n    agent: scout\n", { a: "A." }));
		const out = await start(flow, "turns:\n  a:\n    - say: fine\n");
		expect(out.unwritten).toBeUndefined();
		expect(existsSync(join(out.runDir, "result.json"))).toBe(true);
	});
});
