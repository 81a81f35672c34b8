/**
 * The server's guard over real HTTP: a request is refused unless its Host is the server's own (a name
 * rebound to 127.0.0.1 is not), its Origin (when sent) is the server's, and it carries the session the
 * printed link's token was traded for, once; an action must also be a JSON POST with the page's CSRF
 * token. Every response carries the page's Content-Security-Policy.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, startServer } from "../../src/serve/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

function ask(port: number, path: string, headers: Record<string, string>, method = "GET", body?: string) {
	return new Promise<Answer>((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
			let text = "";
			res.on("data", (d: Buffer) => {
				text += d;
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
		});
		req.on("error", reject);
		req.end(body);
	});
}

describe("the server's guard", () => {
	let project: TempProject;
	let served: Served;
	let host = "";
	let cookie = "";
	let csrf = "";

	beforeAll(async () => {
		project = tempProject();
		served = await startServer({
			cwd: project.cwd,
			agentDir: project.agentDir,
			env: project.env,
			home: `${project.cwd}/.pi/runs`,
			project: false,
		});
		host = `127.0.0.1:${served.port}`;
	});
	afterAll(async () => {
		await served?.close();
		project?.cleanup();
	});

	it("refuses a Host that is not the server's own (DNS rebinding) before anything else", async () => {
		const token = new URL(served.url).search;
		const r = await ask(served.port, `/${token}`, { host: `evil.example:${served.port}` });
		expect(r.status).toBe(421);
		expect(r.headers["content-security-policy"]).toContain("default-src 'none'");
		// The token survived the refusal: a rebound page never got to spend it.
		expect((await ask(served.port, "/", { host })).status).toBe(401);
	});

	it("trades the link's token once for a session cookie, and refuses it the second time", async () => {
		const token = new URL(served.url).searchParams.get("token") as string;
		const wrong = await ask(served.port, "/?token=nope", { host });
		expect(wrong.status).toBe(403);
		const first = await ask(served.port, `/?token=${token}`, { host });
		expect(first.status).toBe(303);
		expect(first.headers.location).toBe("/");
		const set = String(first.headers["set-cookie"]);
		expect(set).toMatch(/HttpOnly/);
		expect(set).toMatch(/SameSite=Strict/);
		cookie = set.split(";")[0];
		const second = await ask(served.port, `/?token=${token}`, { host });
		expect(second.status).toBe(403);
		const page = await ask(served.port, "/", { host, cookie });
		expect(page.status).toBe(200);
		expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
		csrf = /name="pi-flows-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? "";
		expect(csrf).not.toBe("");
		// localhost is the same server; another site's origin is not.
		expect((await ask(served.port, "/api/runs", { host: `localhost:${served.port}`, cookie })).status).toBe(200);
		const foreign = await ask(served.port, "/api/runs", { host, cookie, origin: "http://evil.example" });
		expect(foreign.status).toBe(403);
		const crossSite = await ask(served.port, "/api/runs", { host, cookie, "sec-fetch-site": "cross-site" });
		expect(crossSite.status).toBe(403);
	});

	it("takes an action only as a JSON POST from its own origin with the session's CSRF token", async () => {
		const path = "/api/run/folder/nothing/stop";
		const json = { host, cookie, "content-type": "application/json" };
		const own = `http://${host}`;
		expect((await ask(served.port, path, { ...json, origin: own }, "POST", "{}")).status).toBe(403);
		expect((await ask(served.port, path, { ...json, "x-pi-flows-csrf": csrf }, "POST", "{}")).status).toBe(403);
		const text = { host, cookie, origin: own, "x-pi-flows-csrf": csrf, "content-type": "text/plain" };
		expect((await ask(served.port, path, text, "POST", "{}")).status).toBe(415);
		const withoutSession = { ...json, origin: own, "x-pi-flows-csrf": csrf, cookie: "pi_flows_1=forged" };
		expect((await ask(served.port, path, withoutSession, "POST", "{}")).status).toBe(401);
		// Past the guard, the action itself answers: there is no such run.
		const passed = await ask(served.port, path, { ...json, origin: own, "x-pi-flows-csrf": csrf }, "POST", "{}");
		expect(passed.status).toBe(404);
		expect(JSON.parse(passed.body)).toMatchObject({ ok: false });
	});
});
