/**
 * A `wait` on the DBOS backend survives its worker's death: the deadline is journaled as the wait starts,
 * the worker is killed mid-sleep, and the worker that takes the run over sleeps only what is left (DBOS's
 * durable sleep inside the workflow), so the wait ends at its first deadline, not a whole wait after the
 * takeover.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { RunStore } from "../../src/distributed/store.ts";
import { cliChild } from "../helpers/kill.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { startWorker } from "../helpers/workers.ts";
import { journalRows } from "./fan.ts";

const WAIT_MS = 20_000;

const FLOW = `---\nname: pause\ndescription: one durable wait\ninput: string\nnodes:\n  - id: pause\n    wait: ${WAIT_MS / 1000}s\n---\n`;

describePostgres("a wait on the DBOS backend", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/flows/pause.md", FLOW);
	});
	afterAll(() => project?.cleanup());

	it("a worker killed mid-wait: the survivor sleeps what is left, and the wait ends at its deadline", async () => {
		const url = await pg().database();
		const store = new RunStore(url, 2);
		const args = (extra: string[]) => ["--database", url, "--dead-after-ms", "4000", "--project", ...extra];
		const a = startWorker(project, args([]));
		await a.executor;
		try {
			const client = cliChild(project, [
				"run",
				"pause",
				"go",
				"--json",
				"--project",
				"--backend",
				"dbos",
				"--database",
				url,
			]);
			let deadline: number | undefined;
			const started = Date.now();
			while (deadline === undefined) {
				if (Date.now() - started > 90_000) throw new Error(`the wait never started:\n${a.log()}`);
				const fact = (await journalRows(store)).find((r) => r.type === "fact");
				if (fact?.entry.type === "fact") deadline = fact.entry.value as number;
				else await new Promise((res) => setTimeout(res, 50));
			}
			a.child.kill("SIGKILL");
			const b = startWorker(project, args([]));
			try {
				const out = await client;
				expect(out.status, `${out.stderr}\n${b.log()}`).toBe(0);
				expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, output: { ms: WAIT_MS } });
				const rows = await journalRows(store);
				// One deadline, kept: the survivor read it back instead of starting the wait again.
				expect(rows.filter((r) => r.type === "fact")).toHaveLength(1);
				expect(rows.filter((r) => r.type === "visit_start" && r.path === "pause").length).toBeGreaterThanOrEqual(2);
				const end = rows.find((r) => r.type === "visit_end" && r.path === "pause");
				const endedAt = end?.entry.type === "visit_end" ? Date.parse(end.entry.at) : Number.NaN;
				// Ended at the first life's deadline (a restarted wait would end a whole WAIT_MS after the takeover).
				expect(endedAt).toBeGreaterThanOrEqual(deadline - 50);
				// A restarted wait would end at the takeover plus WAIT_MS: at least the 4 s before a worker is dead, late.
				expect(endedAt - deadline).toBeLessThan(3_000);
			} finally {
				b.child.kill("SIGKILL");
			}
		} finally {
			a.child.kill("SIGKILL");
			await store.close();
		}
	}, 180_000);
});
