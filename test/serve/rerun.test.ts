/**
 * The rerun endpoints over HTTP, against real runs of the real CLI: each refusal in words before anything
 * spends (a node not named, a run still going, a folder not made here, a project run on an untrusted
 * server, a flow file that no longer has the node or is gone, an edited input too large to post), and
 * an edited input previewed as the run it would be (`input changed`).
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, startServer } from "../../src/serve/index.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

const TRI = flowOf(
	"tri",
	"  - id: a\n    agent: helper\n    reads: [input]\n  - id: b\n    agent: helper\n    reads: [a]\n  - id: c\n    agent: helper\n    reads: [b]\n",
	{ a: "A on `input`.", b: "B on `a`.", c: "C on `b`." },
);

interface Reply {
	status: number;
	body: { ok: boolean; said: string; preview?: { plan: { rows: { path: string; status: string; why?: string }[] } } };
}

describe("rerun from a node, refused in words", () => {
	let project: TempProject;
	let run = "";
	const servers: Served[] = [];
	const children: ChildProcess[] = [];
	const home = () => join(project.cwd, ".pi", "runs");
	const folders = () => (existsSync(home()) ? readdirSync(home()).sort() : []);

	/** A server's POST of an action, as its page posts it (cookie, Origin, CSRF). */
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
		const call = (path: string, headers: Record<string, string>, body?: unknown) =>
			new Promise<{ status: number; text: string; cookie: string }>((resolve, reject) => {
				const req = request(
					{
						host: "127.0.0.1",
						port: served.port,
						path,
						method: body === undefined ? "GET" : "POST",
						headers,
						agent: false,
					},
					(res) => {
						let text = "";
						res.on("data", (d: Buffer) => {
							text += d;
						});
						res.on("end", () =>
							resolve({
								status: res.statusCode ?? 0,
								text,
								cookie: String(res.headers["set-cookie"] ?? "").split(";")[0],
							}),
						);
					},
				);
				req.on("error", reject);
				req.end(body === undefined ? undefined : JSON.stringify(body));
			});
		const cookie = (await call(`/?token=${new URL(served.url).searchParams.get("token")}`, { host })).cookie;
		const page = await call("/", { host, cookie });
		const csrf = /name="pi-flows-csrf" content="([^"]+)"/.exec(page.text)?.[1] ?? "";
		return async (id: string, action: string, body: unknown): Promise<Reply> => {
			const r = await call(
				`/api/run/folder/${encodeURIComponent(id)}/${action}`,
				{ host, cookie, origin: `http://${host}`, "content-type": "application/json", "x-pi-flows-csrf": csrf },
				body,
			);
			return { status: r.status, body: JSON.parse(r.text) };
		};
	}

	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/tri.md", TRI);
		project.write("tri.yaml", 'turns:\n  a:\n    - say: "one"\n  b:\n    - say: "two"\n  c:\n    - say: "three"\n');
		project.write("slow.yaml", 'turns:\n  a:\n    - say: "one"\n      delay: 60000\n');
		const ran = spawnSync(process.execPath, [cliBin(), "run", "tri", "go", "--script", "tri.yaml", "--project"], {
			cwd: project.cwd,
			env: project.env,
			encoding: "utf8",
		});
		expect(ran.status, ran.stderr).toBe(0);
		run = folders()[0];
	}, 60_000);
	afterAll(async () => {
		for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
		for (const s of servers) await s.close();
		project?.cleanup();
	});

	it("needs a node's address, and an edited input short enough to post", async () => {
		const post = await serve(true);
		for (const body of [{}, { from: "" }, { from: "--project" }, { from: "../b" }, { from: "b", input: 7 }]) {
			const r = await post(run, "preview", body);
			expect(r.status, JSON.stringify(body)).toBe(400);
		}
		const long = await post(run, "rerun", { from: "b", input: "x".repeat(100_001) });
		expect(long.status).toBe(400);
		expect(long.body.said).toMatch(/too large/);
		expect(folders()).toEqual([run]);
	});

	it("refuses a project run to a server not trusted with the project", async () => {
		const post = await serve(false);
		const r = await post(run, "preview", { from: "b" });
		expect(r.status).toBe(403);
		expect(r.body.said).toMatch(/--project/);
	});

	it("refuses a folder not made here by this person", async () => {
		const dir = join(home(), "0-copied-tri");
		mkdirSync(dir, { recursive: true });
		for (const f of ["snapshot.json", "journal.jsonl"])
			writeFileSync(join(dir, f), readFileSync(join(home(), run, f), "utf8"));
		const post = await serve(true);
		const r = await post("0-copied-tri", "rerun", { from: "b" });
		expect(r.status).toBe(409);
		expect(r.body.said).toMatch(/not made here by you/);
	});

	it("refuses a run still going: a rerun reads a run that ended", async () => {
		const child = spawn(process.execPath, [cliBin(), "run", "tri", "go", "--script", "slow.yaml", "--project"], {
			cwd: project.cwd,
			env: project.env,
			stdio: "ignore",
		});
		children.push(child);
		const before = folders();
		let going = "";
		while (!going) {
			going = folders().find((f) => !before.includes(f) && existsSync(join(home(), f, "lock.json"))) ?? "";
			await new Promise((r) => setTimeout(r, 50));
		}
		const post = await serve(true);
		const r = await post(going, "preview", { from: "b" });
		expect(r.status).toBe(409);
		expect(r.body.said).toMatch(/the run is (running|stalled): a rerun starts from a run that ended/);
		child.kill("SIGKILL");
	}, 60_000);

	it("refuses a node the flow file no longer has, and a flow file that is gone, before any run is made", async () => {
		const post = await serve(true);
		const file = join(project.cwd, ".pi/flows/tri.md");
		const before = folders();
		writeFileSync(
			file,
			TRI.replace("  - id: c\n    agent: helper\n    reads: [b]\n", "").replace(/## c\n\nC on `b`.\n?/, ""),
		);
		try {
			const preview = await post(run, "preview", { from: "c" });
			expect(preview.status).toBe(409);
			expect(preview.body.said).toMatch(/tri has no node `c` \(as its file is now\)/);
			const rerun = await post(run, "rerun", { from: "c" });
			expect(rerun.status).toBe(409);
			expect(rerun.body.said).toMatch(/tri has no node `c`/);
		} finally {
			writeFileSync(file, TRI);
		}
		renameSync(file, `${file}.away`);
		try {
			const gone = await post(run, "preview", { from: "b" });
			expect(gone.status).toBe(409);
			expect(gone.body.said).toMatch(/flow file .* is not here any more/);
		} finally {
			renameSync(`${file}.away`, file);
		}
		expect(folders()).toEqual(before);
	}, 60_000);

	it("previews an edited input as the run it would be: what reads the input runs", async () => {
		const post = await serve(true);
		const r = await post(run, "preview", { from: "c", input: "stay" });
		expect(r.status, r.body.said).toBe(200);
		expect(r.body.preview?.plan.rows.map((x) => [x.path, x.status, x.why])).toEqual([
			["a", "runs", "input changed"],
			["b", "may-change", "it reads `a`, which runs"],
			["c", "runs", "asked to run again (`c`)"],
		]);
	}, 60_000);
});
