/**
 * What the server says of run folders, over HTTP: a project run is shown only to a server trusted with
 * the project; a run whose lock's process is gone is dead, one silent past its idle timeout is stalled;
 * what a run recorded reaches the page redacted; a folder this person's pi-flows did not make is shown
 * but not acted on.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { snapshotOf, writeSnapshot } from "../../src/runs/index.ts";
import { type RunView, type Served, startServer } from "../../src/serve/index.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

const FLOW = flowOf("tiny", "  - id: look\n    agent: scout\n    reads: [input]\n", { look: "Look at `input`." });

interface Reply {
	status: number;
	body: string;
	cookie: string;
}

describe("run folders as the server shows them", () => {
	let project: TempProject;
	const servers: Served[] = [];
	const home = () => join(project.cwd, ".pi", "runs");

	/** A run folder as a recorder leaves it, with the flow at `flowFile` and a lock held by `pid`. */
	function folder(name: string, flowFile: string, pid: number | undefined, lines: unknown[], events: unknown[]) {
		const sources = { project: true };
		const checked = checkFlowText(
			FLOW,
			flowFile,
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		if (!checked.value) throw new Error(checked.faults.map((f) => f.message).join("\n"));
		const dir = join(home(), name);
		mkdirSync(dir, { recursive: true });
		writeSnapshot(
			dir,
			snapshotOf(checked.value, "go", new Map(), { cwd: project.cwd, somebodyThere: false, idleTimeoutMs: 2000 }),
		);
		if (pid !== undefined)
			writeFileSync(join(dir, "lock.json"), JSON.stringify({ pid, host: hostname(), startedAt: "" }));
		const text = (xs: unknown[]) => xs.map((x) => `${JSON.stringify(x)}\n`).join("");
		writeFileSync(join(dir, "journal.jsonl"), text(lines));
		writeFileSync(join(dir, "events.jsonl"), text(events));
		return dir;
	}

	async function serve(trusted: boolean) {
		const served = await startServer({
			cwd: project.cwd,
			agentDir: project.agentDir,
			env: project.env,
			home: home(),
			project: trusted,
		});
		servers.push(served);
		const host = `127.0.0.1:${served.port}`;
		const call = (path: string, cookie = "") =>
			new Promise<Reply>((resolve, reject) => {
				const req = request({ host: "127.0.0.1", port: served.port, path, headers: { host, cookie } }, (res) => {
					let body = "";
					res.on("data", (d: Buffer) => {
						body += d;
					});
					res.on("end", () =>
						resolve({
							status: res.statusCode ?? 0,
							body,
							cookie: String(res.headers["set-cookie"] ?? "").split(";")[0],
						}),
					);
				});
				req.on("error", reject);
				req.end();
			});
		const cookie = (await call(`/?token=${new URL(served.url).searchParams.get("token")}`)).cookie;
		return (path: string) => call(path, cookie);
	}

	const now = () => new Date().toISOString();
	const start = (pid: number) => [
		{ type: "life_start", life: 1, at: now(), pid, host: hostname() },
		{ type: "visit_start", life: 1, path: "look", node: "look", kind: "agent", at: now() },
	];

	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		// A project run (its flow in .pi/flows) whose process is gone.
		const gone = spawnSync(process.execPath, ["-e", "0"]).pid as number;
		folder("1-tiny", join(project.cwd, ".pi/flows/tiny.md"), gone, start(gone), []);
		// A run of the person's own flow, held by this live process, that said a password-shaped thing.
		const said = {
			type: "message",
			path: "look",
			agent: "helper",
			subagent: "s1",
			text: "connecting to postgres://bob:hunter2secret@db.internal/app",
			life: 1,
			at: now(),
		};
		const turn = {
			type: "turn_start",
			path: "look",
			agent: "helper",
			model: "scripted",
			subagent: "s1",
			life: 1,
			at: now(),
		};
		folder("2-tiny", join(project.cwd, "mine/tiny.md"), process.pid, start(process.pid), [turn, said]);
	});
	afterAll(async () => {
		for (const s of servers) await s.close();
		project?.cleanup();
	});

	it("shows a project run only to a server trusted with the project", async () => {
		const untrusted = await serve(false);
		const list = JSON.parse((await untrusted("/api/runs")).body) as {
			runs: { id: string }[];
			skipped: number;
			trust: string;
		};
		expect(list.runs.map((r) => r.id)).toEqual(["2-tiny"]);
		expect(list.skipped).toBe(1);
		expect(list.trust).toMatch(/--project/);
		expect((await untrusted("/api/run/folder/1-tiny")).status).toBe(403);
		// A name that is not one of the runs home's folders is no run, whatever it points at.
		expect((await untrusted("/api/run/folder/..%2F..%2Fetc")).status).toBe(404);
		const trusted = await serve(true);
		const all = JSON.parse((await trusted("/api/runs")).body) as { runs: { id: string }[]; skipped: number };
		expect(all.runs.map((r) => r.id).sort()).toEqual(["1-tiny", "2-tiny"]);
		expect(all.skipped).toBe(0);
	});

	it("calls a run whose process is gone dead, and one silent past its idle timeout stalled", async () => {
		const call = await serve(true);
		const view = async (id: string) =>
			(JSON.parse((await call(`/api/run/folder/${id}`)).body) as { view: RunView }).view;
		const dead = await view("1-tiny");
		expect(dead.head.status).toBe("dead");
		expect(dead.head.statusText).toMatch(/is gone/);
		// A dead run is resumable in principle, but this folder's seal does not check: nothing acts on it.
		expect(dead.actions.resume).toMatchObject({ ok: false, why: expect.stringMatching(/not made here by you/) });
		expect(dead.nodes.look?.state).toBe("cut");
		const live = await view("2-tiny");
		expect(["running", "stalled"]).toContain(live.head.status);
		expect(live.nodes.look?.state).toBe("running");
		await new Promise((r) => setTimeout(r, 2200));
		const silent = await view("2-tiny");
		expect(silent.head.status).toBe("stalled");
		expect(silent.head.statusText).toMatch(/past its idle timeout/);
	});

	it("redacts what a run recorded before the page gets it", async () => {
		const call = await serve(true);
		const body = (await call("/api/run/folder/2-tiny")).body;
		expect(body).toContain("postgres://bob:***@db.internal/app");
		expect(body).not.toContain("hunter2secret");
	});
});
