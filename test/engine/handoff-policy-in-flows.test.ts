/**
 * One switch and one cap for flow turns as for the interactive session: with the protocol off a flow turn
 * has no `finish`/`checkpoint` (not even past the watermark) and no steer; `HANDOFF_MAX_RESETS` bounds checkpoint resets; a `finish` that
 * crosses the watermark ends the turn with no further request; every document is journaled as written.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY, resolveHandoffPolicy } from "../../src/handoff/index.ts";
import type { RunRecorder } from "../../src/engine/index.ts";
import { NO_RECORD } from "../../src/engine/record.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const one = flowOf("p", "  - id: work\n    agent: worker\n", { work: "Work." });
/** The same node with a low watermark, and a first step that crosses it: the handoff tools are offered then. */
const watched = flowOf("p", "  - id: work\n    agent: worker\n    handoff: { watermark: 0.3 }\n", { work: "Work." });
const FILL = "    - call: read\n      args: { path: big.txt }\n";
const fill = () => project.write("big.txt", `${"heron ".repeat(1500)}\n`);

describe("the switch in flow turns", () => {
	it("offers no finish and steers nothing when the protocol is off", async () => {
		project.write("big.txt", `${"heron ".repeat(1500)}\n`);
		const off = { ...DEFAULT_POLICY, enabled: false };
		const ran = await runInline(
			project,
			"p",
			one,
			'contextWindow: 8000\nturns:\n  work:\n    - call: read\n      args: { path: big.txt }\n    - call: finish\n      args: { status: done, summary: x }\n    - say: "{{result}} / {{task|lines:2}}"\n',
			"in",
			{ handoff: off },
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toMatch(/Tool finish not found|not available|unknown tool/i);
		expect(ran.result.output).not.toContain("Time to hand over");
	});

	it("reads HANDOFF_ENABLED and enable_handoff, env first", async () => {
		project.write(".pi/settings.json", '{ "enable_handoff": false }\n');
		const places = { cwd: project.cwd, agentDir: project.agentDir, projectTrusted: true };
		expect((await resolveHandoffPolicy({ ...places, env: {} })).policy.enabled).toBe(false);
		expect((await resolveHandoffPolicy({ ...places, env: { HANDOFF_ENABLED: "on" } })).policy.enabled).toBe(true);
		const capped = await resolveHandoffPolicy({
			...places,
			env: { HANDOFF_MAX_RESETS: "1", HANDOFF_WATERMARK: "1.5" },
		});
		expect(capped.policy).toMatchObject({ maxResets: 1, watermark: 0.6 });
		expect(capped.warnings.join("\n")).toContain("HANDOFF_WATERMARK");
	});

	it("switched off in the project settings, `pi-flows run` gives a flow turn no finish tool", () => {
		project.write(".pi/settings.json", '{ "enable_handoff": false }\n');
		project.write(".pi/flows/p.md", one);
		project.write(
			"s.yaml",
			'turns:\n  work:\n    - call: finish\n      args: { status: done, summary: x }\n    - say: "{{result}}"\n',
		);
		const r = spawnSync(process.execPath, [cliBin(), "run", "p", "go", "--script", "s.yaml", "--project"], {
			cwd: project.cwd,
			env: project.env,
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toMatch(/Tool finish not found|not available|unknown tool/i);
	});
});

describe("the reset cap in flow turns", () => {
	it("allows HANDOFF_MAX_RESETS resets; later checkpoints only save and the turn goes on", async () => {
		const save = (n: number) => `    - call: checkpoint\n      args: { status: in-progress, summary: save ${n} }\n`;
		fill();
		const script = `contextWindow: 8000\nturns:\n  work:\n${FILL}${save(1)}${save(2)}${save(3)}    - say: "{{result}}"\n`;
		const ran = await runInline(project, "p", watched, script, "in", {
			handoff: { ...DEFAULT_POLICY, maxResets: 1 },
		});
		expect(ran.result.ok).toBe(true);
		// One reset: the first session, then one fresh one for the rest.
		expect(ran.spawns).toBe(2);
		expect(ran.result.output).toContain("Automatic resets are used up");
	});
});

describe("the watermark after finish in flow turns", () => {
	it("makes no request after a finish that itself crosses the watermark", async () => {
		// The first session lands at the watermark; its continuation has `finish` from the start, and the
		// finish that ends it is what crosses the continuation's watermark.
		fill();
		const summary = "done ".repeat(5000);
		const ran = await runInline(
			project,
			"p",
			watched,
			`contextWindow: 8000\nturns:\n  work:\n${FILL}    - call: finish\n      args: { status: partial, summary: half, next_task: the rest }\n    - call: finish\n      args: { status: done, summary: "${summary}" }\n    - say: steered after finish\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.calls).toBe(3);
	});

	it("journals each document as the tool writes it, before the turn goes on", async () => {
		const kept: { path: string; doc: unknown }[] = [];
		const recorder: RunRecorder = { ...NO_RECORD, handoff: (path, doc) => kept.push({ path, doc }) };
		fill();
		const ran = await runInline(
			project,
			"p",
			watched,
			`contextWindow: 8000\nturns:\n  work:\n${FILL}    - call: checkpoint\n      args: { status: in-progress, summary: half, reset: none }\n    - call: finish\n      args: { status: done, summary: whole }\n`,
			"in",
			{ recorder },
		);
		expect(ran.result.ok).toBe(true);
		expect(kept.map((k) => [k.path, (k.doc as { summary: string }).summary])).toEqual([
			["work", "half"],
			["work", "whole"],
		]);
	});

	it("a continuation seed names no HANDOFF.md, which flows do not write", async () => {
		fill();
		const ran = await runInline(
			project,
			"p",
			watched,
			`contextWindow: 8000\nturns:\n  work:\n${FILL}    - call: finish\n      args: { status: partial, summary: half, next_task: the rest }\n    - say: "{{task|lines:8}}"\n`,
		);
		expect(ran.result.output).toContain('<handoff-document purpose="next">');
		expect(ran.result.output).not.toContain("HANDOFF.md");
		expect(readdirSync(project.cwd)).not.toContain("HANDOFF.md");
	});
});

it("refuses `watermark: 1.5` in a flow naming the value", async () => {
	const { checkFlowText, catalogueOptions } = await import("../../src/load/index.ts");
	const { loadRoster } = await import("../../src/agents/index.ts");
	const text = flowOf("w", "  - id: work\n    agent: worker\n    handoff: { watermark: 1.5 }\n", { work: "Work." });
	const checked = checkFlowText(
		text,
		join(project.cwd, "w.md"),
		loadRoster(project.cwd, {}, project.env),
		catalogueOptions(project.cwd, {}, project.env),
	);
	const messages = checked.faults.map((f) => f.message).join("\n");
	expect(messages).toContain("must be a number above 0 and at most 1, not 1.5");
});

describe("a flow visit cut mid-turn after a checkpoint", () => {
	const checkpoint = {
		status: "in-progress",
		summary: "parser half written",
		decisions: [],
		artifacts: ["p.ts"],
		next_task: "write the rest",
		writtenAt: "2026-01-01T00:00:00.000Z",
		by: "checkpoint",
	};

	it("goes on from the journaled checkpoint on resume, with the task and that document only", async () => {
		const replay = {
			ended: () => undefined,
			mapItems: () => undefined,
			handoff: (p: string) => (p === "work" ? checkpoint : undefined),
		};
		const ran = await runInline(project, "p", one, 'turns:\n  work:\n    - say: "{{task|lines:30}}"\n', "in", {
			replay,
		});
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("## Handoff from the previous session");
		expect(ran.result.output).toContain("parser half written");
		expect(String(ran.result.output).match(/<handoff-document/g)).toHaveLength(1);
	});

	it("the journal's state offers the document of a visit that did not end, and forgets it once the visit ends", async () => {
		const { journalState } = await import("../../src/runs/index.ts");
		const start = { type: "visit_start" as const, life: 1, path: "work", node: "work", kind: "agent", at: "t" };
		const saved = { type: "handoff" as const, life: 1, path: "work", doc: checkpoint, at: "t" };
		expect(journalState([start, saved]).replay.handoff?.("work")).toEqual(checkpoint);
		const end = {
			type: "visit_end" as const,
			life: 1,
			path: "work",
			node: "work",
			kind: "agent",
			ended: { ok: true, output: "x" },
			usage: {
				input: 0,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 0,
				cost: 0,
				requests: 1,
				toolCalls: 0,
				ms: 0,
			},
			at: "t",
		};
		expect(journalState([start, saved, end]).replay.handoff?.("work")).toBeUndefined();
	});
});
