/**
 * The status a DBOS run's row keeps when it ends follows the failure table's stops, as the folder's report
 * does: the kinds are listed here by hand, so a change of the table shows as a failure to look at.
 */
import { describe, expect, it } from "vitest";
import { runStatus } from "../../src/distributed/worker.ts";

describe("runStatus", () => {
	it("an ended run is ok", () => {
		expect(runStatus({ ok: true })).toBe("ok");
	});
	it("a person's stop, a spent budget, a blocked agent and a fail-fast cut are stops", () => {
		for (const errorKind of ["stopped", "budget", "blocked", "cancelled"] as const)
			expect(runStatus({ ok: false, errorKind }), errorKind).toBe("stopped");
	});
	it("every other failure, and one without a kind, is failed", () => {
		for (const errorKind of ["provider", "timeout", "schema", "condition", "child", "unconverged", "unknown"] as const)
			expect(runStatus({ ok: false, errorKind }), errorKind).toBe("failed");
		expect(runStatus({ ok: false })).toBe("failed");
	});
});
