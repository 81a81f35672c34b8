/**
 * A DBOS run as the server reads it: a worker appends the run's end to the journal and then marks the
 * run's row ended, and wherever that falls among one poll's reads, the page never says "ended well"
 * without the run's answer (a row read after the journal once did, and a page showed a finished run
 * with no output).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRow } from "../../src/distributed/store.ts";
import { type JournalEntry, type Snapshot, snapshotOf } from "../../src/runs/index.ts";
import { viewOf } from "../../src/serve/index.ts";
import { DbosRun, type Dbos } from "../../src/serve/dbos-source.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";
import { checkIn } from "../helpers/wire.ts";

const FLOW = flowOf("tiny", "  - id: look\n    agent: scout\n    reads: [input]\n", { look: "Look at `input`." });

/** A database whose run ends after `endAfter` of the poll's reads: its journal gets the end, then its row. */
function database(snapshot: Snapshot, endAfter: number) {
	const at = "2026-12-06T10:00:00.000Z";
	const journal: { seq: number; entry: JournalEntry }[] = [
		{ seq: 1, entry: { type: "life_start", life: 1, at, pid: 1, host: "h" } },
		{ seq: 2, entry: { type: "visit_start", life: 1, path: "look", node: "look", kind: "agent", at } },
	];
	const row: RunRow = {
		id: "r1",
		flow: "tiny",
		createdAt: at,
		updatedAt: at,
		life: 1,
		status: "running",
		stopRequested: false,
		inDoubt: "stop",
		snapshot,
	};
	let reads = Number.NEGATIVE_INFINITY;
	/** Counts one read of the poll; the worker ends the run just before read number `endAfter` (from 0). */
	const read = () => {
		if (++reads !== endAfter) return;
		journal.push({ seq: 3, entry: { type: "run_end", life: 1, ok: true, at, output: "the answer" } as JournalEntry });
		Object.assign(row, { status: "ok", result: { ok: true, output: "the answer" } });
	};
	const store = {
		run: async () => {
			read();
			return structuredClone(row);
		},
		query: async (_: string, [, after]: [string, number]) => {
			read();
			return { rows: journal.filter((r) => r.seq > after) };
		},
		eventsAfter: async () => {
			read();
			return [];
		},
	};
	const db = {
		store,
		url: "postgres://test",
		questions: {
			openQuestions: async () => {
				read();
				return [];
			},
			markFollowed: async () => {},
		},
		client: {
			workflowFailure: async () => {
				read();
				return undefined;
			},
		},
		worker: { runWorkflowId: () => "r1-1" },
		snapshots: new Map(),
	} as unknown as Dbos;
	return { db, start: () => (reads = -1) };
}

describe("a DBOS run's poll", () => {
	let project: TempProject;
	let snapshot: Snapshot;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/scout.md", agentFile("scout", "read"));
		snapshot = snapshotOf(checkIn(project, "tiny", FLOW), "go", new Map(), { cwd: project.cwd, somebodyThere: false });
	});
	afterAll(() => project?.cleanup());

	it("says the run ended well only with its answer, wherever the worker's end falls among the reads", async () => {
		const seen: string[] = [];
		for (let endAfter = 0; endAfter <= 5; endAfter++) {
			const { db, start } = database(snapshot, endAfter);
			const run = await DbosRun.open(db, "r1");
			if (!run) throw new Error("no run");
			start();
			await run.poll();
			const first = viewOf(await run.record(), Date.now());
			if (first.head.status === "ok")
				expect(first.outcome, `the end just before read ${endAfter}`).toEqual({ ok: true, output: "the answer" });
			await run.poll();
			const then = viewOf(await run.record(), Date.now());
			expect(then.head.status).toBe("ok");
			expect(then.outcome).toEqual({ ok: true, output: "the answer" });
			seen.push(first.head.status);
		}
		// The end fell both before and after the poll's reads: some polls saw it, the last did not.
		expect(seen).toContain("ok");
		expect(seen.at(-1)).toBe("running");
	});
});
