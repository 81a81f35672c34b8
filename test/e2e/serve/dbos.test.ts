/**
 * `pi-flows serve --database` on a real Postgres with a real `pi-flows worker` process: the server lists
 * the database's runs beside the run folders, a run's page follows it (its stream dates the run as
 * followed, so the worker's question waits for the page as for a terminal), the question is answered
 * from the server (through `pi_flows.questions`, once) and the run ends with that answer, a stop asked
 * from the server reaches the worker as `pi-flows stop` does, and a resume from the server (`pi-flows
 * resume --backend dbos` in its own process) runs the next life to the end. A rerun from a node: its
 * preview is what `pi-flows plan --reuse ID --backend dbos --rerun-from` says, and the rerun (`pi-flows
 * run --backend dbos --reuse ID --rerun-from`, detached) goes to the worker and ends with the visits it
 * took counted as saved.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadRoster } from "../../../src/agents/index.ts";
import { enqueueRun } from "../../../src/distributed/client.ts";
import { RunStore } from "../../../src/distributed/store.ts";
import { catalogueOptions, checkFlowText } from "../../../src/load/index.ts";
import { snapshotOf } from "../../../src/runs/index.ts";
import { openDbos, type RunView, type Served, startServer } from "../../../src/serve/index.ts";
import { describePostgres } from "../../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf } from "../../helpers/run.ts";
import { startWorker } from "../../helpers/workers.ts";

const PAINT = flowOf(
	"paint",
	`  - id: plan
    agent: helper
    reads: [input]
  - id: pick
    ask: "Which colour?"
    options: [red, blue]
    reads: [plan]
  - id: paint
    agent: helper
    reads: [pick]
`,
	{ plan: "Plan the painting of `input`.", paint: "Paint in the colour under `pick`." },
);

const SCRIPT = `turns:
  plan:
    - say: "the fence needs two coats"
  paint:
    - say: "painting it {{section:pick}}"
      delay: 8000
`;

interface Reply {
	status: number;
	body: string;
	cookie: string;
}

describePostgres("pi-flows serve over the DBOS backend", (pg) => {
	let project: TempProject;
	let served: Served;
	let cookie = "";
	let csrf = "";
	let host = "";
	let url = "";

	const call = (path: string, method = "GET", body?: unknown) =>
		new Promise<Reply>((resolve, reject) => {
			const headers: Record<string, string> = { host, cookie };
			if (method === "POST")
				Object.assign(headers, {
					origin: `http://${host}`,
					"content-type": "application/json",
					"x-pi-flows-csrf": csrf,
				});
			// A connection of its own: a kept-alive one the server closes as it idles would be reset under the next call.
			const req = request({ host: "127.0.0.1", port: served.port, path, method, headers, agent: false }, (res) => {
				let text = "";
				res.on("data", (d: Buffer) => {
					text += d;
				});
				res.on("end", () =>
					resolve({
						status: res.statusCode ?? 0,
						body: text,
						cookie: String(res.headers["set-cookie"] ?? "").split(";")[0],
					}),
				);
			});
			req.on("error", reject);
			req.end(body === undefined ? undefined : JSON.stringify(body));
		});
	/** Follows a run's stream (as a page does) until the returned function is called. */
	const follow = (id: string) => {
		const req = request({
			host: "127.0.0.1",
			port: served.port,
			path: `/api/run/dbos/${id}/events`,
			headers: { host, cookie },
		});
		req.on("response", (res) => res.resume());
		req.on("error", () => {});
		req.end();
		return () => req.destroy();
	};
	const view = async (id: string): Promise<RunView> =>
		(JSON.parse((await call(`/api/run/dbos/${id}`)).body) as { view: RunView }).view;
	const until = async (id: string, ok: (v: RunView) => boolean, ms = 120_000) => {
		const end = Date.now() + ms;
		for (;;) {
			const v = await view(id);
			if (ok(v)) return v;
			if (Date.now() > end) throw new Error(`timed out; the run is ${v.head.status}: ${v.head.statusText}`);
			await new Promise((r) => setTimeout(r, 200));
		}
	};

	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/paint.md", PAINT);
		// The script a rerun's scripted model answers from (the runs' snapshots name this file).
		project.write("paint.yaml", SCRIPT.replace("delay: 8000", "delay: 10"));
	});
	afterAll(async () => {
		await served?.close();
		project?.cleanup();
	});

	const snapshot = () => {
		const sources = { project: true };
		const checked = checkFlowText(
			PAINT,
			join(project.cwd, ".pi/flows/paint.md"),
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		if (!checked.value) throw new Error(checked.faults.map((f) => f.message).join("\n"));
		return snapshotOf(checked.value, "the fence", new Map(), {
			cwd: project.cwd,
			somebodyThere: true,
			model: "scripted",
			script: { file: join(project.cwd, "paint.yaml"), text: SCRIPT.replace("delay: 8000", "delay: 10") },
		});
	};

	it("lists the database's runs, answers a worker's question from the page's stream, stops a run and resumes it", async () => {
		const dbUrl = await pg().database();
		const worker = startWorker(project, ["--database", dbUrl, "--project"]);
		await worker.executor;
		const db = await openDbos(dbUrl, project.env);
		if ("error" in db) throw new Error(db.error);
		served = await startServer({
			cwd: project.cwd,
			agentDir: project.agentDir,
			env: project.env,
			home: join(project.cwd, ".pi", "runs"),
			project: true,
			db,
		});
		url = served.url;
		host = `127.0.0.1:${served.port}`;
		const first = await call(`/?token=${new URL(url).searchParams.get("token")}`);
		expect(first.status).toBe(303);
		cookie = first.cookie;
		const store = new RunStore(dbUrl, 2);
		try {
			const page = await call("/");
			csrf = /name="pi-flows-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? "";
			const id = await enqueueRun(store, dbUrl, snapshot());
			const list = JSON.parse((await call("/api/runs")).body) as { runs: { id: string; source: string }[] };
			expect(list.runs).toContainEqual(expect.objectContaining({ id, source: "dbos" }));
			const stop = follow(id);
			try {
				const waiting = await until(id, (v) => v.head.status === "waiting");
				expect(waiting.questions).toMatchObject([{ visit: "pick", card: { question: "Which colour?" } }]);
				const wrong = await call(`/api/run/dbos/${id}/answer`, "POST", {
					life: 1,
					visit: "pick",
					answer: { kind: "answer", value: "green" },
				});
				expect(wrong.status).toBe(400);
				const answered = await call(`/api/run/dbos/${id}/answer`, "POST", {
					life: 1,
					visit: "pick",
					answer: { kind: "answer", value: "blue" },
				});
				expect(JSON.parse(answered.body), answered.body).toMatchObject({ ok: true });
				const ended = await until(id, (v) => v.head.status === "ok");
				expect(ended.outcome?.output).toContain("blue");
				const asked = (await store.entries(id)).filter((e) => e.type === "asked");
				expect(asked).toMatchObject([{ path: "pick", answer: { kind: "answer", value: "blue" } }]);
			} finally {
				stop();
			}
			// Rerun from `paint`: first what it would cost, as `pi-flows plan --reuse ID --backend dbos` says it.
			const previewed = await call(`/api/run/dbos/${id}/preview`, "POST", { from: "paint" });
			expect(previewed.status, previewed.body).toBe(200);
			const preview = JSON.parse(previewed.body).preview as {
				plan: { rows: unknown[]; savedTokens: number; mayTokens: number };
				summary: string;
			};
			const planned = spawnSync(
				process.execPath,
				[cliBin(), "plan", join(project.cwd, ".pi/flows/paint.md"), "--project"].concat([
					"--reuse",
					id,
					"--rerun-from",
					"paint",
					"--backend",
					"dbos",
					"--json",
				]),
				{ cwd: project.cwd, env: { ...project.env, PI_FLOWS_DATABASE_URL: dbUrl }, encoding: "utf8" },
			);
			expect(planned.status, planned.stderr).toBe(0);
			const plan = JSON.parse(planned.stdout).reuse;
			expect(preview.plan).toEqual(plan);
			expect(plan.rows.map((r: { path: string; status: string }) => [r.path, r.status])).toEqual([
				["plan", "reused"],
				["pick", "reused"],
				["paint", "runs"],
			]);
			expect(preview.summary).toMatch(/^runs 1 of 3 visits, about [\d.k]+ tokens; 2 reused/);
			// Then the rerun: a new run of the database, played by the worker, its reused visits saved.
			const rerun = await call(`/api/run/dbos/${id}/rerun`, "POST", { from: "paint" });
			const started = JSON.parse(rerun.body) as { ok: boolean; run?: { id: string; source: string } };
			expect(started, rerun.body).toMatchObject({ ok: true, run: { source: "dbos" } });
			const again = started.run?.id as string;
			expect(again).not.toBe(id);
			const reran = await until(again, (v) => v.head.status === "ok");
			expect(reran.outcome?.output).toContain("blue");
			expect(reran.reuse).toMatchObject({ reused: 2, ran: 1, saved: { tokens: plan.savedTokens + plan.mayTokens } });
			expect((await store.run(again))?.snapshot.settings).toMatchObject({ reuse: id, rerunFrom: ["paint"] });
			const listed = JSON.parse((await call("/api/runs")).body) as { runs: { id: string }[] };
			expect(listed.runs.map((r) => r.id)).toContain(again);
			// A run whose last turn crawls: stopped from the server, it ends stopped on its worker.
			const slow = snapshot();
			slow.settings.script = { file: "paint.yaml", text: SCRIPT };
			const id2 = await enqueueRun(store, dbUrl, slow);
			const unfollow = follow(id2);
			try {
				await until(id2, (v) => v.head.status === "waiting");
				const red = { life: 1, visit: "pick", answer: { kind: "answer", value: "red" } };
				expect((await call(`/api/run/dbos/${id2}/answer`, "POST", red)).status).toBe(200);
				await until(id2, (v) => Object.values(v.turns).some((t) => t.path === "paint"));
			} finally {
				unfollow();
			}
			const stopped = await call(`/api/run/dbos/${id2}/stop`, "POST", {});
			expect(stopped.status, stopped.body).toBe(202);
			const after = await until(id2, (v) => v.head.status === "stopped", 60_000);
			expect(after.actions.stop.ok).toBe(false);
			expect((await call(`/api/run/dbos/${id2}/stop`, "POST", {})).status).toBe(409);
			// Resumed from the server through `pi-flows resume --backend dbos`: its next life runs on a worker to the end.
			const resumed = await call(`/api/run/dbos/${id2}/resume`, "POST", { inDoubt: "stop" });
			expect(JSON.parse(resumed.body), resumed.body).toMatchObject({ ok: true, said: expect.stringMatching(/life 2/) });
			const done = await until(id2, (v) => v.head.status === "ok");
			expect(done.head.life).toBe(2);
			expect(done.outcome?.output).toContain("red");
		} finally {
			await store.close();
		}
	}, 300_000);
});
