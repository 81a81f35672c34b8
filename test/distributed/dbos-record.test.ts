/**
 * `pi-flows record` of a run on the DBOS backend: its workers keep no transcripts, so each turn's answers
 * and the digests of what it was asked are journaled in the database (`turns` facts, no tool result); the
 * run recorded from there replays in lockdown, every map item's visit from the cassette, a reworded
 * section is named by the strict replay, and `--refresh sum` plays that node alone on the workers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RunStore } from "../../src/distributed/store.ts";
import { cliChild } from "../helpers/kill.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { startWorker } from "../helpers/workers.ts";
import { fanFlow, journalRows } from "./fan.ts";

const SCRIPT = `turns:
  work:
    - call: read
      args: { path: notes.md }
    - say: "done with {{section:item|lines:1}}"
  sum:
    - say: "all done: {{section:items|lines:2}}"
`;

describePostgres("record a run of the DBOS backend", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.env.CI = "";
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/fan.md", fanFlow(3));
		project.write("notes.md", "the notes\n");
		project.write("fan.yaml", SCRIPT);
	});
	afterAll(() => project?.cleanup());

	it("records from the database's turns, replays in lockdown, names a changed section, refreshes one node", async () => {
		const url = await pg().database();
		const a = startWorker(project, ["--database", url, "--project", "--slots", "2"]);
		await a.executor;
		const db = ["--backend", "dbos", "--database", url];
		const run = await cliChild(project, ["run", "fan", "go", "--script", "fan.yaml", "--project", "--json", ...db]);
		expect(run.status, `${run.stderr}\n${a.log()}`).toBe(0);
		const id = JSON.parse(run.stdout).run as string;
		const store = new RunStore(url, 2);
		try {
			const turns = (await journalRows(store)).filter((r) => r.entry.type === "turns");
			expect(turns.map((r) => r.path).sort()).toEqual(["items[1]/work", "items[2]/work", "items[3]/work", "sum"]);
			// What the model answered and digests of what it was asked; never the text a tool returned.
			expect(JSON.stringify(turns)).not.toContain("the notes");
		} finally {
			await store.close();
		}
		const recorded = await cliChild(project, ["record", id, "--name", "db", "--project", ...db]);
		expect(recorded.status, recorded.stderr).toBe(0);
		expect(recorded.stderr).toContain("4 visit(s), 7 turn(s)");
		const cassette = readFileSync(join(project.cwd, ".pi/flows/fan.db.cassette.yaml"), "utf8");
		expect(cassette).toContain("backend: dbos");
		expect(cassette).not.toContain(url);
		const test = ".pi/flows/fan.db.test.yaml";
		expect(readFileSync(join(project.cwd, test), "utf8")).toContain("notes.md: |");
		const replay = await cliChild(project, ["test", test, "--project", "--replay", "lockdown"]);
		expect(replay.status, replay.stdout).toBe(0);
		expect(replay.stdout).toContain("✓ .pi/flows/fan.db.test.yaml · fan");
		const flow = join(project.cwd, ".pi/flows/fan.md");
		writeFileSync(flow, fanFlow(3).replace("Sum up what", "Add up what"));
		const strict = await cliChild(project, ["test", test, "--project"]);
		expect(strict.status).toBe(1);
		expect(strict.stdout).toContain("visit sum, turn 1: `## sum` changed");
		writeFileSync(flow, fanFlow(3));

		// --refresh sum: the database's workers play `sum` again (from the new script) and reuse every item.
		project.write("fan2.yaml", SCRIPT.replace("all done", "all summed"));
		const refreshed = await cliChild(project, [
			"record",
			id,
			"--name",
			"db",
			"--refresh",
			"sum",
			"--script",
			"fan2.yaml",
			"--project",
			...db,
		]);
		expect(refreshed.status, `${refreshed.stderr}\n${a.log()}`).toBe(0);
		expect(refreshed.stderr).toContain("reused 3 of 4 visits");
		const updated = readFileSync(join(project.cwd, ".pi/flows/fan.db.cassette.yaml"), "utf8");
		expect(updated).toContain("all summed");
		expect(updated).not.toContain(`run: ${id}`);
		const again = await cliChild(project, ["test", test, "--project", "--replay", "lockdown"]);
		expect(again.status, again.stdout).toBe(0);
	}, 240_000);
});
