/**
 * A run folder as the server reads it: a run appends its end to the journal and then lets go of its lock,
 * and a poll reads the lock before the journal, so a run that ends between a poll and the page's view is
 * never shown cut (its lock gone, its end not read): the view is the last poll's until the next one.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotOf, writeSnapshot } from "../../src/runs/index.ts";
import { viewOf } from "../../src/serve/index.ts";
import { FolderRun } from "../../src/serve/folder-source.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";
import { checkIn } from "../helpers/wire.ts";

const FLOW = flowOf("tiny", "  - id: look\n    agent: scout\n    reads: [input]\n", { look: "Look at `input`." });
const AT = "2026-12-06T10:00:00.000Z";
const line = (x: unknown) => `${JSON.stringify(x)}\n`;

describe("a run folder's record", () => {
	let project: TempProject;
	let dir: string;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/scout.md", agentFile("scout", "read"));
		dir = join(project.cwd, ".pi", "runs", "r1");
		mkdirSync(dir, { recursive: true });
		writeSnapshot(
			dir,
			snapshotOf(checkIn(project, "tiny", FLOW), "go", new Map(), { cwd: project.cwd, somebodyThere: false }),
		);
		writeFileSync(
			join(dir, "journal.jsonl"),
			line({ type: "life_start", life: 1, at: AT, pid: process.pid, host: hostname() }) +
				line({ type: "visit_start", life: 1, path: "look", node: "look", kind: "agent", at: AT }),
		);
		writeFileSync(join(dir, "lock.json"), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: AT }));
	});
	afterAll(() => project?.cleanup());

	it("shows a run that ended after a poll as the poll read it, then ended with its answer", () => {
		const run = FolderRun.open(dir, project.agentDir);
		if ("error" in run) throw new Error(run.error);
		run.poll();
		expect(viewOf(run.record(), Date.now()).head.status).toBe("running");
		// The run ends: its end into the journal, then its lock let go.
		appendFileSync(join(dir, "journal.jsonl"), line({ type: "run_end", life: 1, ok: true, at: AT, output: "seen" }));
		rmSync(join(dir, "lock.json"));
		// Until the next poll the record is the last poll's, lock and journal alike: still running, not cut.
		expect(viewOf(run.record(), Date.now()).head.status).toBe("running");
		run.poll();
		const view = viewOf(run.record(), Date.now());
		expect(view.head.status).toBe("ok");
		expect(view.outcome).toEqual({ ok: true, output: "seen" });
	});
});
