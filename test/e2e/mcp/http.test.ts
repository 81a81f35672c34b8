/**
 * `pi-flows mcp --http` as one real process on 127.0.0.1 for the whole file, every client of it the
 * official SDK's `Client` over streamable HTTP: refusals before the SDK sees a byte (no token, a wrong
 * token, a rebinding page's Host, a foreign Origin); on the 2025 era the tools, a flow with progress, the
 * unattended rule for a client without forms, and a session (`Mcp-Session-Id`) through which a form is
 * answered and one declined; on the 2026-07-28 era the same two forms as `input_required` rounds and a
 * cancelled call; and the Tasks extension, driven by `@modelcontextprotocol/ext-tasks`'s requester: a run
 * as a task polled to its end, an ask node's form carried by `input_required` and answered (or declined)
 * through `tasks/update`, a `tasks/cancel` that stops the run resumable for `run_resume`, and the refusals
 * the extension names (a client that did not declare it, a task that does not exist).
 */
import { request } from "node:http";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../../helpers/project.ts";
import {
	askedIn,
	connectHttp,
	ended,
	type HttpServer,
	mcpProject,
	rawRequest,
	type Replies,
	type Report,
	runEndOf,
	settle,
	startHttp,
	tasksSession,
} from "./fixture.ts";

let project: TempProject;
let server: HttpServer;
const clients: Client[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
	project = mcpProject();
	server = await startHttp(project, ["--script", "http.yaml"]);
}, 150_000);

afterAll(async () => {
	await Promise.all([...clients.map((c) => c.close()), ...closers.map((c) => c())]);
	await server?.stop();
	project.cleanup();
});

/** A raw POST with the headers given as they are (Node's fetch would not let a test set `Host`). */
function post(headers: Record<string, string>): Promise<number> {
	return new Promise((resolve, reject) => {
		const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
		const req = request(
			{
				host: "127.0.0.1",
				port: server.url.port,
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

async function client(replies: Replies | undefined, era: "legacy" | "auto") {
	const c = await connectHttp(server, { ...(replies ? { replies } : {}), era });
	clients.push(c.client);
	return c;
}

const replies = (now: Replies["now"]): Replies => ({ now, forms: [] });

/** The run's report in a completed task's tool result. */
function reportOf(outcome: Parameters<typeof resultFromTaskOutcome>[0]): Report {
	return (resultFromTaskOutcome(outcome) as unknown as { structuredContent: Report }).structuredContent;
}

describe("pi-flows mcp over streamable HTTP", () => {
	it("refuses a request with no token, a wrong token, a foreign Host or a foreign Origin", async () => {
		const { token } = server;
		const host = `127.0.0.1:${server.url.port}`;
		expect(await post({ host })).toBe(401);
		expect(await post({ host, authorization: "Bearer wrong" })).toBe(401);
		expect(await post({ host: `evil.example:${server.url.port}`, authorization: `Bearer ${token}` })).toBe(403);
		expect(await post({ host, origin: "http://evil.example", authorization: `Bearer ${token}` })).toBe(403);
		// A claim-less POST that is no `initialize` opens no session: the 2025 leg answers it 400.
		expect(await post({ host, origin: `http://${host}`, authorization: `Bearer ${token}` })).toBe(400);
	});

	it("2025 era: lists the tools, runs a flow with progress, and takes the unattended rule without forms", async () => {
		const { client: c } = await client(undefined, "legacy");
		expect(c.getProtocolEra()).toBe("legacy");
		expect((await c.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["hello", "asker", "chain"]));
		const progress: string[] = [];
		const r = await c.callTool(
			{ name: "hello", arguments: { input: "Ada" } },
			{ onprogress: (p) => progress.push(p.message ?? "") },
		);
		expect(r.structuredContent).toMatchObject({ status: "ok", answer: "greeted Ada" });
		expect(progress).toContain("✓ work");
		const asked = (await c.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(asked).toMatchObject({ answer: "greeted Bob", asks: [expect.objectContaining({ via: "no-elicitation" })] });
	});

	it("2025 era: a session (Mcp-Session-Id) carries a form to the client, answered and declined", async () => {
		const yes = replies({ accept: "Ada" });
		const { client: c, transport } = await client(yes, "legacy");
		expect(transport.sessionId).toEqual(expect.any(String));
		const answered = (await c.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(answered).toMatchObject({ answer: "greeted Ada", asks: [expect.objectContaining({ via: "elicitation" })] });
		expect(JSON.stringify(yes.forms)).toContain("Who should be greeted?");
		expect(askedIn(join(project.cwd, answered.runDir ?? ""))[0]?.answer).toMatchObject({ via: "elicitation" });
		yes.now = "decline";
		const declined = (await c.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(declined).toMatchObject({ answer: "greeted Bob", asks: [expect.objectContaining({ via: "declined" })] });
	});

	it("2026-07-28 era: a form answered and one declined, as input_required rounds", async () => {
		const yes = replies({ accept: "Ada" });
		const { client: c, transport } = await client(yes, "auto");
		expect(c.getProtocolEra()).toBe("modern");
		// The 2026 era is stateless: no session is opened for it.
		expect(transport.sessionId).toBeUndefined();
		const answered = (await c.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(answered).toMatchObject({ answer: "greeted Ada", asks: [expect.objectContaining({ via: "elicitation" })] });
		yes.now = "decline";
		const declined = (await c.callTool({ name: "asker", arguments: { input: "x" } })).structuredContent as Report;
		expect(declined).toMatchObject({ answer: "greeted Bob", asks: [expect.objectContaining({ via: "declined" })] });
	});

	it("a cancelled call stops its run; the journal says stopped", async () => {
		const { client: c } = await client(undefined, "auto");
		const stop = new AbortController();
		let run = "";
		await new Promise<void>((resolve) => {
			void c
				.callTool(
					{ name: "hello", arguments: { input: "Ada" } },
					{
						signal: stop.signal,
						onprogress: (p) => {
							run ||= /run (\S+) under way/.exec(p.message ?? "")?.[1] ?? "";
							if (run) resolve();
						},
					},
				)
				.catch(() => undefined);
		});
		stop.abort();
		const report = await ended(c, run);
		expect(report).toMatchObject({ status: "stopped", resumable: true });
		expect(runEndOf(join(project.cwd, report.runDir ?? ""))).toMatchObject({ ok: false, errorKind: "stopped" });
	});
});

describe("the Tasks extension over streamable HTTP", () => {
	const taskReplies = replies({ accept: "Ada" });
	let tasks: Awaited<ReturnType<typeof tasksSession>>;
	beforeAll(async () => {
		tasks = await tasksSession(server, taskReplies);
		closers.push(tasks.close);
	});

	it("a flow call is a task: its seed state, tasks/get to the end, and the tool result inside", async () => {
		const seen: string[] = [];
		const execution = await tasks.session.callTool("hello", { input: "Ada" });
		expect(execution.kind).toBe("task");
		const { outcome } = await execution.settle({
			onEvent: (e) => {
				if (e.type === "task") seen.push(e.task.status);
			},
		});
		expect(outcome.status).toBe("completed");
		expect(reportOf(outcome)).toMatchObject({ status: "ok", answer: "greeted Ada" });
		expect(seen).toContain("working");
	});

	it("an ask node's form comes as input_required and its answer goes back through tasks/update", async () => {
		taskReplies.now = { accept: "Ada" };
		const before = taskReplies.forms.length;
		const { outcome } = await (await tasks.session.callTool("asker", { input: "x" })).settle();
		const report = reportOf(outcome);
		expect(report).toMatchObject({
			status: "ok",
			answer: "greeted Ada",
			asks: [expect.objectContaining({ via: "elicitation", answer: "Ada" })],
		});
		expect(JSON.stringify(taskReplies.forms.slice(before))).toContain("Who should be greeted?");
		expect(askedIn(join(project.cwd, report.runDir ?? ""))[0]?.answer).toMatchObject({
			kind: "answer",
			via: "elicitation",
		});
		taskReplies.now = "decline";
		const declined = await (await tasks.session.callTool("asker", { input: "x" })).settle();
		expect(reportOf(declined.outcome)).toMatchObject({
			answer: "greeted Bob",
			asks: [expect.objectContaining({ via: "declined" })],
		});
	});

	it("tasks/cancel stops the run as Ctrl-C does: the task is cancelled, and run_resume finishes the run", async () => {
		const execution = await tasks.session.callTool("hello", { input: "Ada" });
		if (execution.kind !== "task") throw new Error("not a task");
		// Cancelled at once: the run's one turn takes 1.5 s.
		await execution.cancel();
		const { outcome } = await execution.settle();
		expect(outcome.status).toBe("cancelled");
		// The extension's cancel is eventually consistent: the task says `working … stopping` until the run
		// has stopped at a safe point, then `cancelled`.
		const taskOf = () =>
			rawRequest(
				server,
				{ method: "tasks/get", params: { taskId: execution.handle.taskId } },
				{ extensions: { "io.modelcontextprotocol/tasks": {} } },
			);
		let got = await taskOf();
		for (let i = 0; i < 200 && got.result?.status === "working"; i++) {
			expect(got.result.statusMessage).toMatch(/; stopping$/);
			await new Promise((r) => setTimeout(r, 100));
			got = await taskOf();
		}
		expect(got.result).toMatchObject({
			status: "cancelled",
			ttlMs: 86_400_000,
			pollIntervalMs: 1000,
			statusMessage: expect.stringContaining("run_resume"),
		});
		const run = /"run":"([^"]+)"/.exec(String(got.result?.statusMessage))?.[1] ?? "";
		const { client: c } = await client(undefined, "auto");
		const stopped = await ended(c, run);
		expect(stopped).toMatchObject({ status: "stopped", resumable: true });
		expect(runEndOf(join(project.cwd, stopped.runDir ?? ""))).toMatchObject({ errorKind: "stopped" });
		const { last } = await settle(c, "run_resume", { run });
		expect(last).toMatchObject({ status: "ok", run, answer: "greeted Ada" });
	});

	it("refuses tasks/get to a client that did not declare the extension, and a task that does not exist", async () => {
		const undeclared = await rawRequest(server, { method: "tasks/get", params: { taskId: "nope" } });
		expect(undeclared.error).toMatchObject({
			code: -32021,
			data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
		});
		const unknown = await rawRequest(
			server,
			{ method: "tasks/get", params: { taskId: "nope" } },
			{
				extensions: { "io.modelcontextprotocol/tasks": {} },
			},
		);
		expect(unknown.error).toMatchObject({ code: -32602 });
	});
});
