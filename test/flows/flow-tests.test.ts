/**
 * The shipped flows' own flow tests (`flows/*.test.yaml`), run the way an author runs them: `pi-flows
 * test` as a subprocess, on the scripted model, every test passing.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

it("every shipped flow has a flow test, and every one passes", () => {
	const agentDir = mkdtempSync(join(tmpdir(), "pi-flows-flowtests-"));
	try {
		const r = spawnSync(process.execPath, [cliBin(), "test"], {
			cwd: PACKAGE_ROOT,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
			encoding: "utf8",
			timeout: 120_000,
		});
		expect(r.stdout).toMatch(/^7 passed, 0 failed$/m);
		for (const flow of ["explore", "split", "interview", "build", "build-attended", "review-loop", "swarm-survey"]) {
			expect(r.stdout).toContain(`✓ flows/${flow}.test.yaml · ${flow}`);
		}
		expect(r.status).toBe(0);
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
}, 120_000);
