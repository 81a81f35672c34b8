/**
 * Reuse on the DBOS backend: a run reuses a run of the same database, and every worker reads it from there,
 * so whichever worker an item lands on takes the same unchanged visits. One item of twelve changed plays
 * one item turn and the sum that reads the items; the rest are copied, their usage saved and counted 0.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { RunStore } from "../../src/distributed/store.ts";
import { cliChild } from "../helpers/kill.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { startWorker } from "../helpers/workers.ts";
import { fanFlow, journalRows } from "./fan.ts";

const SCRIPT = `turns:
  work:
    - say: "done with {{section:item|lines:1}}"
  sum:
    - say: "all done: {{section:items|lines:2}}"
`;

describePostgres("reuse on the DBOS backend", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/fan.md", fanFlow(12));
		project.write("fan.yaml", SCRIPT);
	});
	afterAll(() => project?.cleanup());

	it("takes the unchanged visits of a run of the same database, on whichever worker runs them", async () => {
		const url = await pg().database();
		const a = startWorker(project, ["--database", url, "--project", "--slots", "2"]);
		const b = startWorker(project, ["--database", url, "--project", "--slots", "2"]);
		const workers = [await a.executor, await b.executor];
		const run = (...extra: string[]) =>
			cliChild(project, [
				"run",
				"fan",
				"go",
				"--script",
				"fan.yaml",
				"--project",
				"--backend",
				"dbos",
				"--database",
				url,
				"--json",
				...extra,
			]);
		const first = await run();
		expect(first.status, `${first.stderr}\n${a.log()}\n${b.log()}`).toBe(0);
		const paid = JSON.parse(first.stdout).usage.totalTokens as number;
		project.write(".pi/flows/fan.md", fanFlow(12).replace("item-12", "item-twelve"));
		const again = await run("--reuse");
		expect(again.status, `${again.stderr}\n${a.log()}\n${b.log()}`).toBe(0);
		expect(again.stderr).toContain("reusing what did not change from run ");
		expect(again.stderr).toContain("reused 11 of 13 visits");
		const out = JSON.parse(again.stdout);
		expect(out.output).toContain("all done");
		expect(out.usage.totalTokens).toBeGreaterThan(0);
		expect(out.usage.totalTokens).toBeLessThan(paid);
		const store = new RunStore(url, 2);
		try {
			const [newest] = await store.runs(1);
			const notes = (await journalRows(store)).flatMap((r) =>
				r.entry.type === "visit_end" && r.entry.ended.reuse ? [{ ...r, note: r.entry.ended.reuse }] : [],
			);
			const reused = notes.filter((r) => r.note.outcome === "reused");
			expect(reused.map((r) => r.path).sort()).toEqual(
				Array.from({ length: 11 }, (_, i) => `items[${i + 1}]/work`).sort(),
			);
			// Written by the workers that ran the items, both reading the one run in the database.
			for (const r of reused) expect(workers).toContain(r.executor);
			const ran = notes.filter((r) => r.note.outcome === "ran");
			expect(ran.map((r) => [r.path, r.note])).toEqual([
				["items[12]/work", expect.objectContaining({ why: "the item changed (`item`)" })],
				["sum", expect.objectContaining({ why: "`items`'s output changed" })],
			]);
			expect((await store.run(newest?.id as string))?.snapshot.settings.reuse).toBeDefined();
		} finally {
			await store.close();
		}
	}, 240_000);
});
