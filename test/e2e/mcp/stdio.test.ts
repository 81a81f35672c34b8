/**
 * `pi-flows mcp` over stdio, driven by the official SDK's `Client` spawning the real CLI: the tools it
 * lists (a flow's input schema from its `input:` type), a flow called on the scripted model with
 * progress, a question answered through elicitation and one declined (the default applies; the journal
 * says which), a client with no forms, the 2026-07-28 era (the question as an `input_required` round),
 * a cancelled call (the run stops as at Ctrl-C and stays resumable), and a call that outlives the wait
 * returning a handle that `run_result` follows.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../../helpers/project.ts";
import { askedIn, connect, mcpProject, runEndOf } from "./fixture.ts";

type Report = {
	status: string;
	run: string;
	runDir: string;
	answer?: unknown;
	asks: { via: string }[];
	resumable?: boolean;
};

let project: TempProject;
/** One server per way of answering forms, shared by the tests (each spawn is a whole CLI start). */
let plain: Client;
let accepting: Client;
let declining: Client;
let modern: Client;
let slow: Client;
const forms: { accepting: unknown[]; modern: unknown[] } = { accepting: [], modern: [] };
const greet = ["--script", "greet.yaml"];

beforeAll(async () => {
	project = mcpProject();
	const slowCwd = join(project.cwd, "slow");
	[plain, accepting, declining, modern, slow] = await Promise.all([
		connect(project, { reply: "none", args: greet }),
		connect(project, { reply: { accept: "Ada" }, args: greet, forms: forms.accepting }),
		connect(project, { reply: "decline", args: greet }),
		connect(project, { reply: { accept: "Grace" }, era: "auto", args: greet, forms: forms.modern }),
		connect(project, { reply: "none", cwd: slowCwd, args: ["--script", "late.yaml", "--wait", "1s"] }),
	]);
}, 150_000);

afterAll(async () => {
	await Promise.all([plain, accepting, declining, modern, slow].map((c) => c?.close()));
	project.cleanup();
});

describe("pi-flows mcp over stdio", () => {
	it("lists each flow as a tool with its input schema, and the server's own tools", async () => {
		const { tools } = await plain.listTools();
		const names = tools.map((t) => t.name);
		expect(names).toEqual(
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
	});

	it("runs a flow on the scripted model, with a progress notification per visit", async () => {
		const progress: { progress: number; message?: string }[] = [];
		const r = await plain.callTool(
			{ name: "hello", arguments: { input: "Ada" } },
			{ onprogress: (p) => progress.push(p) },
		);
		const report = r.structuredContent as Report;
		expect(report.status).toBe("ok");
		expect(String(report.answer)).toContain("greeted");
		expect(progress.map((p) => p.message)).toContain("✓ work");
		expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
		const status = await plain.callTool({ name: "run_status", arguments: { run: report.run } });
		expect((status.structuredContent as Report).status).toBe("ok");
	});

	it("checks a flow's text (faults at their lines), plans a served flow, and runs a chain", async () => {
		const bad =
			"---\nname: draft\ndescription: d\ninput: string\nnodes:\n  - id: work\n    agent: nobody-here\n---\n\n## work\n\nx\n";
		const checked = (await plain.callTool({ name: "flow_check", arguments: { text: bad } })).structuredContent as {
			ok: boolean;
			faults: { code: string; line: number; column: number }[];
		};
		expect(checked.ok).toBe(false);
		expect(checked.faults).toEqual([expect.objectContaining({ code: "unknown-agent", line: 7, column: 12 })]);
		const plan = (await plain.callTool({ name: "flow_plan", arguments: { flow: "hello" } })).structuredContent as {
			rows: unknown[];
		};
		expect(plan.rows.length).toBeGreaterThan(0);
		const chained = await plain.callTool({ name: "chain", arguments: { chain: "@helper", goal: "Ada" } });
		expect(chained.structuredContent).toMatchObject({ status: "ok" });
		const typo = await plain.callTool({ name: "chain", arguments: { chain: "@helpr" } });
		expect(typo.isError).toBe(true);
	});

	it("puts a question to the person through elicitation, and the journal says so", async () => {
		const r = await accepting.callTool({ name: "asker", arguments: { input: "anyone" } });
		const report = r.structuredContent as Report;
		expect(report.status).toBe("ok");
		expect(String(report.answer)).toContain("Ada");
		expect(forms.accepting).toHaveLength(1);
		expect(JSON.stringify(forms.accepting[0])).toContain("Who should be greeted?");
		expect(report.asks).toEqual([expect.objectContaining({ via: "elicitation", answer: "Ada" })]);
		expect(askedIn(join(project.cwd, report.runDir))).toEqual([
			expect.objectContaining({ path: "q", answer: expect.objectContaining({ kind: "answer", via: "elicitation" }) }),
		]);
	});

	it("falls back to the flow's default when the client declines, and says it was declined", async () => {
		const report = (await declining.callTool({ name: "asker", arguments: { input: "anyone" } }))
			.structuredContent as Report;
		expect(report.status).toBe("ok");
		expect(String(report.answer)).toContain("Bob");
		expect(report.asks).toEqual([expect.objectContaining({ via: "declined" })]);
		expect(askedIn(join(project.cwd, report.runDir))[0]?.answer).toMatchObject({ kind: "nobody", via: "declined" });
	});

	it("applies the unattended rule at once for a client with no forms", async () => {
		const report = (await plain.callTool({ name: "asker", arguments: { input: "anyone" } }))
			.structuredContent as Report;
		expect(String(report.answer)).toContain("Bob");
		expect(report.asks).toEqual([expect.objectContaining({ via: "no-elicitation" })]);
	});

	it("serves the 2026-07-28 era: the question comes back as an input_required round", async () => {
		expect(modern.getProtocolEra()).toBe("modern");
		const report = (await modern.callTool({ name: "asker", arguments: { input: "anyone" } }))
			.structuredContent as Report;
		expect(String(report.answer)).toContain("Grace");
		expect(forms.modern).toHaveLength(1);
		expect(report.asks).toEqual([expect.objectContaining({ via: "elicitation" })]);
	});

	it("a run longer than the wait returns a handle that run_result follows to the answer", async () => {
		const first = (await slow.callTool({ name: "slow", arguments: { input: "Ada" } })).structuredContent as Report & {
			next?: string;
		};
		expect(first.status).toBe("running");
		expect(first.next).toContain("run_result");
		let report = first;
		for (let i = 0; i < 20 && report.status === "running"; i++)
			report = (await slow.callTool({ name: "run_result", arguments: { run: first.run } }))
				.structuredContent as Report & { next?: string };
		expect(report).toMatchObject({ status: "ok", run: first.run, answer: "greeted late" });
	});
	it("a cancelled call stops its run as Ctrl-C does; the journal says stopped and the run is resumable", async () => {
		const cwd = join(project.cwd, "slow");
		const stop = new AbortController();
		const started = new Promise<void>((resolve) => {
			void slow
				.callTool({ name: "slow", arguments: { input: "Ada" } }, { signal: stop.signal, onprogress: () => resolve() })
				.catch(() => undefined);
		});
		await started;
		stop.abort();
		// The run lands, then shows in the runs folder as stopped.
		let report: Report | undefined;
		for (let i = 0; i < 200 && report?.status !== "stopped"; i++) {
			const runs = (await slow.callTool({ name: "runs", arguments: {} })).structuredContent as { runs: Report[] };
			report = runs.runs[0];
			if (report?.status !== "stopped") await new Promise((r) => setTimeout(r, 50));
		}
		expect(report).toMatchObject({ status: "stopped", resumable: true });
		expect(runEndOf(join(cwd, report?.runDir ?? ""))).toMatchObject({ ok: false, errorKind: "stopped" });
	});
});
