/**
 * A journal written by an older (or another) version still reads on resume: its failure kinds are read
 * onto the closed set, a kind this version does not know becomes `unknown` (never a crash, never a string
 * no table knows), and the rest of the run goes on from what it replays.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decidedByFlow, journalState, readJournal } from "../../src/runs/index.ts";
import { emptyUsage } from "../../src/runtime/usage.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const at = "2026-01-01T00:00:00.000Z";
/** A journal as a version before the failure type wrote it: lines of JSON, failures as `{ kind, message }`. */
function oldJournal(lines: object[]): string {
	const path = join(project.cwd, "journal.jsonl");
	writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return path;
}
const ended = (path: string, kind: string, message: string) => ({
	type: "visit_end",
	life: 1,
	path,
	node: path,
	kind: "agent",
	ended: { ok: false, error: { kind, message }, absorbed: true },
	usage: emptyUsage(),
	at,
});

describe("an older journal's failures", () => {
	it("read onto today's kinds, and a kind nobody knows reads as `unknown`", () => {
		const path = oldJournal([
			{ type: "life_start", life: 1, at, pid: 1, host: "h" },
			ended("a", "schema", "the turn ended with no accepted `submit` call"),
			ended("b", "gone-away", "a kind from another version"),
			{
				type: "visit_end",
				life: 1,
				path: "c",
				node: "c",
				kind: "agent",
				ended: { ok: false, error: "bare" },
				usage: emptyUsage(),
				at,
			},
			{ type: "run_end", life: 1, ok: false, error: "d: later-kind: x", errorKind: "later-kind", failedAt: "d", at },
		]);
		const read = readJournal(path);
		if (!read.ok) throw new Error(read.error);
		const state = journalState(read.entries);
		expect(state.replay.ended("a")?.error).toEqual({
			kind: "schema",
			message: "the turn ended with no accepted `submit` call",
		});
		expect(state.replay.ended("b")?.error).toEqual({ kind: "unknown", message: "a kind from another version" });
		expect(state.end?.errorKind).toBe("unknown");
		// An unknown kind is not the flow's own decision: the resume is offered.
		expect(decidedByFlow(state.end?.errorKind, state.causeKind)).toBe(false);
	});

	it("keep the resume's rule: a child failure that started with a final kind is the flow's decision", () => {
		const path = oldJournal([
			{ type: "life_start", life: 1, at, pid: 1, host: "h" },
			{
				...ended("loop", "unconverged", "3 rounds"),
				ended: { ok: false, error: { kind: "unconverged", message: "3 rounds" } },
			},
			{
				type: "run_end",
				life: 1,
				ok: false,
				error: "loop: unconverged: 3 rounds",
				errorKind: "child",
				failedAt: "loop",
				at,
			},
		]);
		const read = readJournal(path);
		if (!read.ok) throw new Error(read.error);
		const state = journalState(read.entries);
		expect(state.causeKind).toBe("unconverged");
		expect(decidedByFlow(state.end?.errorKind, state.causeKind)).toBe(true);
	});

	it("are replayed into a run: a later node reads the absorbed visit's kind, and the run goes on", async () => {
		const path = oldJournal([
			{ type: "life_start", life: 1, at, pid: 1, host: "h" },
			ended("look", "gone-away", "written by another version"),
			ended("peek", "provider", "503"),
		]);
		const read = readJournal(path);
		if (!read.ok) throw new Error(read.error);
		const flow = flowOf(
			"old",
			"  - id: look\n    agent: scout\n    on-fail: continue\n  - id: peek\n    agent: scout\n    on-fail: continue\n  - id: answer\n    agent: synthesiser\n    reads: [look.error.kind, peek.error.kind]\n",
			{ look: "Look.", peek: "Peek.", answer: "Answer." },
		);
		const ran = await runInline(project, "old", flow, `turns:\n  answer:\n    - say: "{{task}}"\n`, "the input", {
			replay: journalState(read.entries).replay,
		});
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("## look.error.kind\n\nunknown");
		expect(ran.result.output).toContain("## peek.error.kind\n\nprovider");
		// Replayed, not run again: only the answer spoke.
		expect(ran.spawns).toBe(1);
		expect(ran.result.visits.find((v) => v.path === "look")).toMatchObject({ ok: false, errorKind: "unknown" });
	});
});
