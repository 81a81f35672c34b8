/**
 * `pi-flows mcp` over stdio, driven by the official SDK's `Client` spawning the real CLI, two servers for
 * the file (a stdio server has one client, and a client speaks one era): a 2025-era client that answers
 * forms (accepting or declining, as each test says) on a server that answers at once, and a 2026-07-28
 * client on a server whose turns take 3 s against a 1 s `--wait`. The tools it lists (a flow's input
 * schema from its `input:` type), a flow called with progress, `flow_check`, `flow_plan` and `chain`, a
 * question answered through elicitation and one declined (the journal says which), the 2026 era's
 * `input_required` round and a handle that `run_result` follows, and a call cancelled after its turn
 * wrote a file: the run stops as at Ctrl-C, `run_resume` refuses it as in doubt and resumes it with
 * `inDoubt: "rerun"`.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../../helpers/project.ts";
import { askedIn, connectStdio, ended, mcpProject, type Replies, type Report, runEndOf, settle } from "./fixture.ts";

let project: TempProject;
let legacy: Client;
let modern: Client;
const legacyReplies: Replies = { now: { accept: "Ada" }, forms: [] };
const modernReplies: Replies = { now: { accept: "Grace" }, forms: [] };

beforeAll(async () => {
	project = mcpProject();
	[legacy, modern] = await Promise.all([
		connectStdio(project, { replies: legacyReplies, era: "legacy", args: ["--script", "greet.yaml"] }),
		connectStdio(project, { replies: modernReplies, era: "auto", args: ["--script", "late.yaml", "--wait", "1s"] }),
	]);
}, 150_000);

afterAll(async () => {
	await Promise.all([legacy, modern].map((c) => c?.close()));
	project.cleanup();
});

describe("pi-flows mcp over stdio", () => {
	it("lists each flow as a tool with its input schema, and the server's own tools", async () => {
		const { tools } = await legacy.listTools();
		expect(tools.map((t) => t.name)).toEqual(
			expect.arrayContaining([
				"hello",
				"asker",
				"chain",
				"flow_check",
				"flow_plan",
				"runs",
				"run_status",
				"run_result",
				"run_stop",
				"run_resume",
			]),
		);
		const hello = tools.find((t) => t.name === "hello");
		expect(hello?.description).toBe("Greets whoever is named.");
		expect(hello?.inputSchema).toMatchObject({
			type: "object",
			properties: { input: { type: "string" } },
			required: ["input"],
		});
		expect(hello?.outputSchema).toMatchObject({
			type: "object",
			required: expect.arrayContaining(["status", "run", "usage"]),
		});
		const resume = tools.find((t) => t.name === "run_resume");
		expect(resume?.inputSchema).toMatchObject({ properties: { inDoubt: { enum: ["rerun", "stop"] } } });
	});

	it("runs a flow on the scripted model, with a progress notification per visit", async () => {
		const progress: { progress: number; message?: string }[] = [];
		const r = await legacy.callTool(
			{ name: "hello", arguments: { input: "Ada" } },
			{ onprogress: (p) => progress.push(p) },
		);
		const report = r.structuredContent as Report;
		expect(report).toMatchObject({ status: "ok", answer: "greeted Ada" });
		expect(progress.map((p) => p.message)).toContain("✓ work");
		expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
		const status = await legacy.callTool({ name: "run_status", arguments: { run: report.run } });
		expect((status.structuredContent as Report).status).toBe("ok");
	});

	it("checks a flow's text (faults at their lines), plans a served flow, and runs a chain", async () => {
		const bad =
			"---\nname: draft\ndescription: d\ninput: string\nnodes:\n  - id: work\n    agent: nobody-here\n---\n\n## work\n\nx\n";
		const checked = (await legacy.callTool({ name: "flow_check", arguments: { text: bad } })).structuredContent as {
			ok: boolean;
			faults: { code: string; line: number; column: number }[];
		};
		expect(checked.ok).toBe(false);
		expect(checked.faults).toEqual([expect.objectContaining({ code: "unknown-agent", line: 7, column: 12 })]);
		const plan = (await legacy.callTool({ name: "flow_plan", arguments: { flow: "hello" } })).structuredContent as {
			rows: unknown[];
		};
		expect(plan.rows.length).toBeGreaterThan(0);
		const chained = await legacy.callTool({ name: "chain", arguments: { chain: "@helper", goal: "Ada" } });
		expect(chained.structuredContent).toMatchObject({ status: "ok" });
		const typo = await legacy.callTool({ name: "chain", arguments: { chain: "@helpr" } });
		expect(typo.isError).toBe(true);
	});

	it("puts a question to the person through elicitation, and the journal says so", async () => {
		legacyReplies.now = { accept: "Ada" };
		const report = (await legacy.callTool({ name: "asker", arguments: { input: "anyone" } }))
			.structuredContent as Report;
		expect(report).toMatchObject({ status: "ok", answer: "greeted Ada" });
		expect(JSON.stringify(legacyReplies.forms.at(-1))).toContain("Who should be greeted?");
		expect(report.asks).toEqual([expect.objectContaining({ via: "elicitation", answer: "Ada" })]);
		expect(askedIn(join(project.cwd, report.runDir ?? ""))).toEqual([
			expect.objectContaining({ path: "q", answer: expect.objectContaining({ kind: "answer", via: "elicitation" }) }),
		]);
	});

	it("falls back to the flow's default when the client declines, and says it was declined", async () => {
		legacyReplies.now = "decline";
		const report = (await legacy.callTool({ name: "asker", arguments: { input: "anyone" } }))
			.structuredContent as Report;
		expect(report).toMatchObject({ status: "ok", answer: "greeted Bob" });
		expect(report.asks).toEqual([expect.objectContaining({ via: "declined" })]);
		expect(askedIn(join(project.cwd, report.runDir ?? ""))[0]?.answer).toMatchObject({
			kind: "nobody",
			via: "declined",
		});
	});

	it("serves the 2026-07-28 era: the question is an input_required round, then a handle run_result follows", async () => {
		expect(modern.getProtocolEra()).toBe("modern");
		const { first, last } = await settle(modern, "asker", { input: "anyone" });
		// The turn takes 3 s, the wait 1 s: the answered call came back with a handle.
		expect(first).toMatchObject({ status: "running", next: expect.stringContaining("run_result") });
		expect(last).toMatchObject({ status: "ok", run: first.run, answer: "greeted Grace" });
		expect(modernReplies.forms).toHaveLength(1);
		expect(last.asks).toEqual([expect.objectContaining({ via: "elicitation", answer: "Grace" })]);
	});

	it("a call cancelled after its turn wrote stops the run resumable; run_resume reruns it only when told", async () => {
		const wrote = join(project.cwd, "late.txt");
		rmSync(wrote, { force: true });
		const stop = new AbortController();
		let run = "";
		void modern
			.callTool(
				{ name: "hello", arguments: { input: "Ada" } },
				{
					signal: stop.signal,
					onprogress: (p) => {
						run ||= /run (\S+) under way/.exec(p.message ?? "")?.[1] ?? "";
					},
				},
			)
			.catch(() => undefined);
		// The turn's write has happened and its answer is 3 s away: the stop cuts it after a write.
		for (let i = 0; i < 400 && !(run && existsSync(wrote)); i++) await new Promise((r) => setTimeout(r, 25));
		stop.abort();
		const stopped = await ended(modern, run);
		expect(stopped).toMatchObject({ status: "stopped", resumable: true, next: expect.stringContaining("run_resume") });
		expect(runEndOf(join(project.cwd, stopped.runDir ?? ""))).toMatchObject({ ok: false, errorKind: "stopped" });
		const refused = await modern.callTool({ name: "run_resume", arguments: { run } });
		expect(refused.isError).toBe(true);
		expect(JSON.stringify(refused.content)).toContain("in doubt: work");
		expect(JSON.stringify(refused.content)).toContain("inDoubt");
		const { last } = await settle(modern, "run_resume", { run, inDoubt: "rerun" });
		expect(last).toMatchObject({ status: "ok", run, answer: "greeted Ada" });
	});
});
