/**
 * Hole 11 (issue 28): the database password was in `ps` for a worker's whole life when given with
 * `--database postgres://user:password@…`: any user of the machine could read it from the process list.
 * The command line the system shows is rewritten as the process starts, the password masked; the worker
 * still reaches its database (a real Postgres here) with it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describePostgres } from "../helpers/postgres.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { startWorker } from "../helpers/workers.ts";

let project: TempProject;
beforeAll(() => {
	project = tempProject();
});
afterAll(() => project.cleanup());

describePostgres("a worker given --database", (pg) => {
	it("shows its database URL in `ps` with the password masked, and joins the database", async () => {
		const url = await pg().database();
		const password = pg().password;
		expect(url).toContain(`:${password}@`);
		const worker = startWorker(project, ["--database", url, "--slots", "1"]);
		await worker.executor;
		const pid = String(worker.child.pid);
		const ps = spawnSync("ps", ["-o", "args=", "-p", pid], { encoding: "utf8" }).stdout;
		const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+/g, " ");
		for (const shown of [ps, cmdline]) {
			expect(shown).toContain("worker --database postgres://");
			expect(shown).toContain(":***@127.0.0.1");
			expect(shown.includes(password), `the password is shown: ${shown}`).toBe(false);
		}
	}, 120_000);
});
