/**
 * Holes 7 and 8 (issue 28): the untrusted `.pi/settings.json` picked the backend
 * (`"pi-flows": {"backend": "dbos"}`), so with `PI_FLOWS_DATABASE_URL` set the person's run and its input went
 * to the team's database; and its `enable_handoff: false` switched the handoff protocol off for the person's
 * turns. Both are read only when the project is trusted; untrusted, each is named with how to trust.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

describe("the untrusted project's settings pick neither the backend nor the handoff switch", () => {
	it("`backend: dbos` in .pi/settings.json does not send the run to the database without --project", () => {
		const p = repo();
		p.write(".pi/settings.json", JSON.stringify({ "pi-flows": { backend: "dbos" } }));
		p.write("s.yaml", "turns:\n  '*':\n    - say: looked\n");
		// A database the run must never reach: nothing listens on port 1.
		p.env.PI_FLOWS_DATABASE_URL = "postgres://team:secret@127.0.0.1:1/team";
		const r = cli(p, "run", "explore", "what is here?", "--script", "s.yaml");
		expect(r.code, r.stderr).toBe(0);
		expect(runFolders(p)).toHaveLength(1);
		expect(r.stderr).toContain(".pi/settings.json picks the backend `dbos`, which was not read");
		expect(r.stderr).toContain("add `--project` on the command line");
	}, 120_000);

	it("`enable_handoff: false` in .pi/settings.json does not switch the protocol off without --project", () => {
		const p = repo();
		p.write(".pi/settings.json", JSON.stringify({ enable_handoff: false }));
		p.write("TASK.md", "Do the thing.\n");
		p.write("s.yaml", "turns:\n  turn1:\n    - call: finish\n      args: { status: done, summary: did it }\n");
		const r = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1");
		expect(r.code, r.stderr).toBe(0);
		expect(r.stderr).toContain("complete after 1 turn(s)");
		expect(r.stderr).toContain("switches the handoff protocol off (`enable_handoff`), which was not read");
		const trusted = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1", "--project", "--fresh");
		expect(trusted.code).toBe(2);
		expect(trusted.stderr).toContain("the handoff protocol is switched off");
	}, 120_000);
});
