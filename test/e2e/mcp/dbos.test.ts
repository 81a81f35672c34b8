/**
 * `pi-flows mcp --backend dbos` on a throwaway Postgres cluster, with one real `pi-flows worker` and one
 * real HTTP server for the file, driven by the official SDK's clients: a run the server puts in the
 * database and follows by its id while the worker runs it; an ask node's question, written by the worker
 * to the database's questions table, put to the client as a form and its answer written back (and a
 * declined one taking the default); `run_stop` asking the database, so the worker stops the run as
 * Ctrl-C does, and `run_resume` starting its next life on the worker; `runs` listing the database's runs.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RunStore } from "../../../src/distributed/store.ts";
import { migrateDatabase } from "../../../src/distributed/worker.ts";
import { describePostgres } from "../../helpers/postgres.ts";
import type { TempProject } from "../../helpers/project.ts";
import { connectHttp, type HttpServer, mcpProject, type Replies, type Report, settle, startHttp } from "./fixture.ts";

describePostgres("pi-flows mcp on the DBOS backend", (pg) => {
	let project: TempProject;
	let url: string;
	let worker: ChildProcess | undefined;
	let workerLog = "";
	let server: HttpServer | undefined;
	let store: RunStore;
	const clients: Client[] = [];

	beforeAll(async () => {
		project = mcpProject();
		url = await pg().database();
		// Migrated once here, so the worker and the server (which only checks the schema) start side by side.
		await migrateDatabase(url);
		const child = spawn(process.execPath, [cliBin(), "worker", "--database", url], {
			cwd: project.cwd,
			env: project.env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		worker = child;
		const joined = new Promise<void>((resolve, reject) => {
			child.stdout?.on("data", (d) => {
				workerLog += d;
				if (/^worker \S+ on /m.test(workerLog)) resolve();
			});
			child.stderr?.on("data", (d) => {
				workerLog += d;
			});
			child.once("exit", (code) => reject(new Error(`the worker exited (${code}):\n${workerLog}`)));
		});
		[server] = await Promise.all([
			startHttp(project, ["--backend", "dbos", "--database", url, "--script", "http.yaml"]),
			joined,
		]);
		store = new RunStore(url, 2);
	}, 180_000);

	afterAll(async () => {
		await Promise.all(clients.map((c) => c.close()));
		await server?.stop();
		await store?.close();
		if (worker && worker.exitCode === null) {
			const gone = new Promise((r) => worker?.once("exit", r));
			worker.kill("SIGTERM");
			await gone;
		}
		project?.cleanup();
	}, 60_000);

	async function client(replies: Replies | undefined, era: "legacy" | "auto"): Promise<Client> {
		if (!server) throw new Error("no server");
		const { client: c } = await connectHttp(server, { ...(replies ? { replies } : {}), era });
		clients.push(c);
		return c;
	}

	it("puts a run in the database, puts the worker's question to the client as a form, and writes the answer back", async () => {
		const replies: Replies = { now: { accept: "Ada" }, forms: [] };
		const c = await client(replies, "auto");
		const { last } = await settle(c, "asker", { input: "x" });
		expect(last, `${server?.stderr()}\n${workerLog}`).toMatchObject({
			status: "ok",
			answer: "greeted Ada",
			asks: [expect.objectContaining({ via: "elicitation", answer: "Ada" })],
		});
		// A DBOS run's handle is its id in the database, and it has no run folder.
		expect(last.runDir).toBeUndefined();
		expect(JSON.stringify(replies.forms)).toContain("Who should be greeted?");
		const row = await store.query<{ answer: { kind: string; value?: string } }>(
			"SELECT answer FROM pi_flows.questions WHERE run_id = $1",
			[last.run],
		);
		expect(row.rows).toMatchObject([{ answer: { kind: "answer", value: "Ada" } }]);
		const asked = (await store.entries(last.run)).filter((e) => e.type === "asked");
		expect(asked).toMatchObject([{ path: "q", answer: { kind: "answer", value: "Ada" } }]);
		// Another client finds it by its id, and in the database's list of runs.
		const other = await client(undefined, "auto");
		expect(
			(await other.callTool({ name: "run_status", arguments: { run: last.run } })).structuredContent,
		).toMatchObject({ status: "ok", answer: "greeted Ada" });
		const runs = (await other.callTool({ name: "runs", arguments: {} })).structuredContent as { runs: Report[] };
		expect(runs.runs.map((r) => r.run)).toContain(last.run);
	});

	it("a declined form takes the flow's default on the worker (2025 era, in a session)", async () => {
		const c = await client({ now: "decline", forms: [] }, "legacy");
		const { last } = await settle(c, "asker", { input: "x" });
		expect(last).toMatchObject({
			status: "ok",
			answer: "greeted Bob",
			asks: [expect.objectContaining({ via: "declined" })],
		});
		const row = await store.query<{ answer: { kind: string; via?: string } }>(
			"SELECT answer FROM pi_flows.questions WHERE run_id = $1",
			[last.run],
		);
		expect(row.rows).toMatchObject([{ answer: { kind: "nobody", via: "declined" } }]);
	});

	it("run_stop reaches the worker through the database; run_resume starts the run's next life there", async () => {
		const c = await client(undefined, "auto");
		let run = "";
		const turning = new Promise<void>((resolve) => {
			void c
				.callTool(
					{ name: "hello", arguments: { input: "Ada" } },
					{
						onprogress: (p) => {
							run ||= /run (\S+) under way/.exec(p.message ?? "")?.[1] ?? "";
							if (p.message === "▶ work") resolve();
						},
					},
				)
				.catch(() => undefined);
		});
		await turning;
		const stopped = (await c.callTool({ name: "run_stop", arguments: { run } })).structuredContent as Report;
		expect(stopped).toMatchObject({ status: "stopped", resumable: true, next: expect.stringContaining("run_resume") });
		expect((await store.run(run))?.status).toBe("stopped");
		const { last } = await settle(c, "run_resume", { run });
		expect(last, workerLog).toMatchObject({ status: "ok", run, answer: "greeted Ada" });
		expect((await store.run(run))?.life).toBe(2);
	});
});
