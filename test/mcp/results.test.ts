/**
 * The status a run tool reports for an ended run, from its journal: a run that ended in a stop (a person's
 * stop, fail-fast, a spent budget, an agent finishing `blocked`) is `stopped` and resumable; a fault is
 * `failed`, resumable unless the flow itself decided it. Expectations are written out by hand. A run folder
 * with no end yet (`diskReport`) is `running` while its lock is held here by a live process or by another
 * host (whose processes this one cannot see), and `interrupted` once nobody holds it or its holder here is
 * gone.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diskReport, journalReport } from "../../src/mcp/results.ts";
import { checked, cleanupProjects, project, start } from "../helpers/durable.ts";
import { agentFile, type TempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";
import type { FlowResult } from "../../src/engine/index.ts";
import { type JournalEntry, runEndEntry } from "../../src/runs/index.ts";
import type { FailureKind } from "../../src/runtime/index.ts";

const where = { run: "r1", flow: "f", backend: "folder" as const, runDir: "r1", running: false };

/** A journal whose one life ended failing `kind` at `work`. */
function endedWith(kind: FailureKind): JournalEntry[] {
	const result = { flow: "f", ok: false, output: "", error: `work: ${kind}: x`, errorKind: kind, failedAt: "work" };
	return [runEndEntry(1, result as unknown as FlowResult)];
}

describe("a run tool's status for an ended run", () => {
	it.each<[FailureKind, string, boolean]>([
		["blocked", "stopped", true],
		["budget", "stopped", true],
		["stopped", "stopped", true],
		["cancelled", "stopped", true],
		["provider", "failed", true],
		["condition", "failed", false],
	])("%s: %s, resumable %s", (kind, status, resumable) => {
		const report = journalReport(endedWith(kind), where);
		expect([report.status, report.resumable, report.errorKind]).toEqual([status, resumable, kind]);
	});
});

const FLOW = flowOf("tiny", "  - id: look\n    agent: scout\n    reads: [input]\n", { look: "Look at `input`." });

describe("a run folder's report from disk", () => {
	let p: TempProject;
	let runDir = "";
	const stop = new AbortController();
	let ran: ReturnType<typeof start> | undefined;
	beforeAll(async () => {
		p = project();
		p.write(".pi/agents/scout.md", agentFile("scout", "read"));
		// A run under way: its turn hangs until the test stops it, so its journal has no end.
		ran = start(p, checked(p, "tiny", FLOW), "turns:\n  look:\n    - hang: true\n", {
			keyDir: p.agentDir,
			signal: stop.signal,
		});
		const home = join(p.cwd, ".pi", "runs");
		for (;;) {
			const dir = existsSync(home) ? readdirSync(home).find((d) => !d.startsWith(".")) : undefined;
			if (dir && readFileSync(join(home, dir, "journal.jsonl"), "utf8").includes('"visit_start"')) {
				runDir = join(home, dir);
				break;
			}
			await new Promise((r) => setTimeout(r, 20));
		}
	});
	afterAll(async () => {
		stop.abort();
		await ran;
		cleanupProjects();
	});

	const statusWith = (lock: unknown) => {
		if (lock === undefined) rmSync(join(runDir, "lock.json"), { force: true });
		else writeFileSync(join(runDir, "lock.json"), JSON.stringify(lock));
		const r = diskReport(runDir, p.cwd, p.agentDir);
		if (!r.ok) throw new Error(r.error);
		return r.report.status;
	};

	it("says running or interrupted by who holds the lock", () => {
		const gone = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout);
		expect(statusWith({ pid: process.pid, host: hostname(), startedAt: "now" })).toBe("running");
		expect(statusWith(undefined)).toBe("interrupted");
		expect(statusWith({ pid: gone, host: hostname(), startedAt: "then" })).toBe("interrupted");
		expect(statusWith({ pid: gone, host: `not-${hostname()}`, startedAt: "now" })).toBe("running");
	});
});
