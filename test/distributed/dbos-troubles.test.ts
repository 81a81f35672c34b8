/**
 * Issue 33, point 4: the report of a run on the DBOS backend says what went wrong inside its turns, as a
 * run folder's report does. Its workers keep no transcripts, so each turn's refused tool calls and failed
 * tools are journaled with their words (`tool_trouble`); the same flow and script run in a folder and on
 * the database give the same rows.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliChild } from "../helpers/kill.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";
import { startWorker } from "../helpers/workers.ts";
import { type El, parseHtml, select, text } from "../report/html.ts";

// One turn: a call pi refuses (`read` takes `path`), a read of a file that is not there, then the answer.
const SCRIPT = `turns:
  look:
    - call: read
      args: { file: notes.md }
    - call: read
      args: { path: missing.md }
    - say: looked
`;

/** The report's rows of refused calls and failed tools, as `class: visit life tool words`. */
const troubleRows = (doc: El) =>
	["tool-refused", "tool-failed"].flatMap((cls) =>
		select(doc, `table.${cls}`).flatMap((t) =>
			select(t, "tr.tool-trouble").map((r) => `${cls}: ${select(r, "td").map(text).join(" | ")}`),
		),
	);

describePostgres("the report of a DBOS run", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.env.CI = "";
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(
			".pi/flows/peek.md",
			flowOf("peek", "  - id: look\n    agent: helper\n", { look: "Look at the notes." }),
		);
		project.write("peek.yaml", SCRIPT);
	});
	afterAll(() => project?.cleanup());

	it("lists each refused call and failed tool with its words, as the run folder's report does", async () => {
		const local = await cliChild(project, ["run", "peek", "go", "--script", "peek.yaml", "--project", "--json"]);
		expect(local.status, local.stderr).toBe(0);
		const folder = JSON.parse(local.stdout).runDir as string;
		const localOut = join(project.cwd, "folder-report.html");
		const localReport = await cliChild(project, ["report", folder, "--out", localOut]);
		expect(localReport.status, localReport.stderr).toBe(0);
		const fromFolder = troubleRows(parseHtml(readFileSync(localOut, "utf8")));
		expect(fromFolder).toEqual([
			expect.stringMatching(/^tool-refused: look \| 1 \| read \| Validation failed for tool "read"/),
			expect.stringMatching(/^tool-failed: look \| 1 \| read \| .*missing\.md/),
		]);

		const url = await pg().database();
		const w = startWorker(project, ["--database", url, "--project", "--slots", "1"]);
		await w.executor;
		const db = ["--backend", "dbos", "--database", url];
		const run = await cliChild(project, ["run", "peek", "go", "--script", "peek.yaml", "--project", "--json", ...db]);
		expect(run.status, `${run.stderr}\n${w.log()}`).toBe(0);
		const id = JSON.parse(run.stdout).run as string;
		const out = join(project.cwd, "dbos-report.html");
		const report = await cliChild(project, ["report", id, "--database", url, "--out", out]);
		expect(report.status, report.stderr).toBe(0);
		expect(troubleRows(parseHtml(readFileSync(out, "utf8")))).toEqual(fromFolder);
	}, 120_000);
});
