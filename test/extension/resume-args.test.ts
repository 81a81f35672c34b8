/**
 * Issue 33, point 2: `/run resume` reads the CLI's flags, wherever they stand on the line, instead of
 * taking `--in-doubt rerun` for a run folder; a flag only the CLI has is refused by name.
 */
import { describe, expect, it } from "vitest";
import { readResumeLine } from "../../src/extension/resume-args.ts";

describe("/run resume's words", () => {
	it("reads --in-doubt, --take-lock, --runs-dir and --timeout before or after the run folder", () => {
		expect(readResumeLine("--in-doubt rerun")).toEqual({ ok: true, value: { inDoubt: "rerun" } });
		expect(readResumeLine(".pi/runs/x --in-doubt stop --take-lock --timeout 10m --runs-dir runs")).toEqual({
			ok: true,
			value: { run: ".pi/runs/x", inDoubt: "stop", takeLock: true, timeoutMs: 600_000, runsDir: "runs" },
		});
		expect(readResumeLine("")).toEqual({ ok: true, value: {} });
	});

	it("says what is wrong in one sentence", () => {
		expect(readResumeLine("--in-doubt maybe")).toEqual({ ok: false, error: "`--in-doubt` takes `rerun` or `stop`" });
		expect(readResumeLine("--json")).toMatchObject({ ok: false, error: expect.stringContaining("`pi-flows resume`") });
		expect(readResumeLine("--frobnicate")).toMatchObject({ ok: false, error: expect.stringMatching(/^unknown flag/) });
		expect(readResumeLine("a b")).toMatchObject({ ok: false });
		expect(readResumeLine("--timeout soon")).toMatchObject({ ok: false, error: expect.stringContaining("--timeout") });
	});
});
