/**
 * The status a run tool reports for an ended run, from its journal: a run that ended in a stop (a person's
 * stop, fail-fast, a spent budget, an agent finishing `blocked`) is `stopped` and resumable; a fault is
 * `failed`, resumable unless the flow itself decided it. Expectations are written out by hand.
 */
import { describe, expect, it } from "vitest";
import type { FlowResult } from "../../src/engine/index.ts";
import { journalReport } from "../../src/mcp/results.ts";
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
