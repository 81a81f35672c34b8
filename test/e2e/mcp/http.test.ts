/**
 * `pi-flows mcp --http` as a real process on 127.0.0.1, driven by the official SDK's `Client` over
 * streamable HTTP: refusals before the SDK sees a byte (no token, a wrong token, a rebinding page's Host,
 * a foreign Origin), then the tools listed and a flow run with progress on the 2025 era, a question
 * answered and one declined on the 2026-07-28 era (the `input_required` round over HTTP), and a cancelled
 * call stopping its run resumable.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import type { TempProject } from "../../helpers/project.ts";
import { askedIn, mcpProject, runEndOf } from "./fixture.ts";

type Report = { status: string; run: string; runDir: string; answer?: unknown; asks: { via: string }[] };

const TOKEN = "test-token-0123456789";
let project: TempProject;
let server: ChildProcess;
let url: URL;
const clients: Client[] = [];

beforeAll(async () => {
	project = mcpProject();
	project.write(
		"http.yaml",
		'turns:\n  "*":\n    - delay: 1500\n      say: "greeted {{section:q}}{{section:input}}"\n',
	);
	server = spawn(
		process.execPath,
		[join(PACKAGE_ROOT, "bin/pi-flows.js"), "mcp", "--http", "--project", "--script", "http.yaml"],
		{ cwd: project.cwd, env: { ...project.env, PI_FLOWS_MCP_TOKEN: TOKEN } },
	);
	url = await new Promise<URL>((resolve, reject) => {
		let err = "";
		server.stderr?.on("data", (d) => {
			err += d;
			const m = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
			if (m) resolve(new URL(m[1]));
		});
		server.once("exit", () => reject(new Error(`the server exited: ${err}`)));
	});
}, 150_000);

afterAll(async () => {
	await Promise.all(clients.map((c) => c.close()));
	const exited = new Promise((r) => server.once("exit", r));
	server.kill("SIGINT");
	await exited;
	project.cleanup();
});

/** A raw POST with the headers given as they are (Node's fetch would not let a test set `Host`). */
function post(headers: Record<string, string>): Promise<number> {
	return new Promise((resolve, reject) => {
		const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
		const req = request(
			{
				host: "127.0.0.1",
				port: url.port,
				path: "/mcp",
				method: "POST",
				headers: {
					"content-type": "application/json",
					accept: "application/json, text/event-stream",
					"content-length": Buffer.byteLength(body),
					...headers,
				},
			},
			(res) => {
				res.resume();
				resolve(res.statusCode ?? 0);
			},
		);
		req.once("error", reject);
		req.end(body);
	});
}

async function client(reply: { accept: string } | "decline" | "none", era: "legacy" | "auto"): Promise<Client> {
	const c = new Client(
		{ name: "pi-flows-http-test", version: "1.0.0" },
		{
			capabilities: reply === "none" ? {} : { elicitation: { form: {} } },
			...(era === "auto" ? { versionNegotiation: { mode: "auto" } } : {}),
		},
	);
	if (reply !== "none")
		c.setRequestHandler("elicitation/create", async () =>
			reply === "decline" ? { action: "decline" } : { action: "accept", content: { answer: reply.accept } },
		);
	await c.connect(
		new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
	);
	clients.push(c);
	return c;
}

describe("pi-flows mcp over streamable HTTP", () => {
	it("refuses a request with no token, a wrong token, a foreign Host or a foreign Origin", async () => {
		const host = `127.0.0.1:${url.port}`;
		expect(await post({ host })).toBe(401);
		expect(await post({ host, authorization: "Bearer wrong" })).toBe(401);
		expect(await post({ host: `evil.example:${url.port}`, authorization: `Bearer ${TOKEN}` })).toBe(403);
		expect(await post({ host, origin: "http://evil.example", authorization: `Bearer ${TOKEN}` })).toBe(403);
		expect(await post({ host, origin: `http://${host}`, authorization: `Bearer ${TOKEN}` })).toBe(200);
	});

	it("lists the tools and runs a flow with progress (2025 era)", async () => {
		const c = await client("none", "legacy");
		expect(c.getProtocolEra()).toBe("legacy");
		expect((await c.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["hello", "asker", "chain"]));
		const progress: string[] = [];
		const r = await c.callTool(
			{ name: "hello", arguments: { input: "Ada" } },
			{ onprogress: (p) => progress.push(p.message ?? "") },
		);
		expect((r.structuredContent as Report).status).toBe("ok");
		expect(progress).toContain("✓ work");
	});

	it("answers a question through a form, and declines one, on the 2026-07-28 era", async () => {
		const yes = await client({ accept: "Ada" }, "auto");
		expect(yes.getProtocolEra()).toBe("modern");
		const answered = (await yes.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(String(answered.answer)).toContain("Ada");
		expect(askedIn(join(project.cwd, answered.runDir))[0]?.answer).toMatchObject({ via: "elicitation" });
		const no = await client("decline", "auto");
		const declined = (await no.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(String(declined.answer)).toContain("Bob");
		expect(declined.asks).toEqual([expect.objectContaining({ via: "declined" })]);
	});

	it("a cancelled call stops its run; the journal says stopped", async () => {
		const c = await client("none", "auto");
		const stop = new AbortController();
		await new Promise<void>((resolve) => {
			void c
				.callTool({ name: "hello", arguments: { input: "Ada" } }, { signal: stop.signal, onprogress: () => resolve() })
				.catch(() => undefined);
		});
		stop.abort();
		let report: Report | undefined;
		for (let i = 0; i < 200 && report?.status !== "stopped"; i++) {
			const runs = (await c.callTool({ name: "runs", arguments: { limit: 1 } })).structuredContent as {
				runs: Report[];
			};
			report = runs.runs[0];
			if (report?.status !== "stopped") await new Promise((r) => setTimeout(r, 50));
		}
		expect(report?.status).toBe("stopped");
		expect(runEndOf(join(project.cwd, report?.runDir ?? ""))).toMatchObject({ ok: false, errorKind: "stopped" });
	});
});
