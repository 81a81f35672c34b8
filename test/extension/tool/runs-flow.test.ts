import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sequence } from "../helpers/flows.ts";
import { type Line, rpc, type Sandbox, sandbox } from "../helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox(["echo", "judge"]);
	box.write("~agent/flows/hello.md", sequence("hello", [{ id: "greet", agent: "echo" }], "model: scripted/scripted\n"));
});
afterEach(() => box.cleanup());

type ToolEnd = Line & {
	toolName: string;
	isError: boolean;
	result: {
		content: { text: string }[];
		details: { mode: string; rows: { agent: string; state: string }[]; runDir?: string };
		usage?: { totalTokens: number };
	};
};
const toolEnds = (lines: Line[]) => lines.filter((l): l is ToolEnd => l.type === "tool_execution_end");
const textOf = (t: ToolEnd) => t.result.content.map((c) => c.text).join("");

/** Drives the main session: the driver model makes `calls`, then answers with what it saw. */
async function drive(
	calls: { name: string; args: Record<string, unknown> }[],
	script = `turns:\n  "*":\n${'    - say: "ANSWER TO: {{task|lines:1}}"\n'.repeat(8)}`,
) {
	const file = box.write("script.yaml", script);
	const pi = rpc(box, {
		args: ["--model", "driver/driver"],
		env: { PI_FLOWS_TEST_SCRIPT: file, PI_FLOWS_TEST_DRIVER: JSON.stringify(calls) },
	});
	await pi.prompt("Please delegate.");
	await pi.waitFor((l) => l.type === "agent_settled", "the main session to settle", 60_000);
	return pi;
}

describe("the subagent tool in a real pi process", () => {
	it("runs a whole flow and returns its answer, with progress updates and the subagents' usage", async () => {
		const pi = await drive([{ name: "subagent", args: { flow: "hello", input: "greet the reader" } }]);
		try {
			const [end] = toolEnds(pi.lines);
			expect(end.isError).toBe(false);
			expect(textOf(end)).toContain("ANSWER TO: Do your part");
			expect(textOf(end)).toMatch(/\nok · \.pi\/runs\/.*-hello · /);
			expect(end.result.details).toMatchObject({ mode: "flow", rows: [{ agent: "echo", state: "done" }] });
			expect(end.result.usage?.totalTokens).toBeGreaterThan(0);
			expect(readdirSync(join(box.cwd, ".pi/runs"))).toHaveLength(1);
			expect(pi.lines.some((l) => l.type === "tool_execution_update")).toBe(true);
			const final = pi.lines
				.filter((l) => l.type === "message_end" && (l.message as { role: string }).role === "assistant")
				.at(-1);
			expect(JSON.stringify(final)).toContain("DRIVER SAW:");
			expect(JSON.stringify(final)).toContain("ANSWER TO: Do your part");
			// pi's session totals include what the subagents spent: its own answers plus the tool's usage.
			pi.send({ id: "stats", type: "get_session_stats" });
			const stats = (await pi.waitFor((l) => l.type === "response" && l.id === "stats", "the session stats")).data as {
				tokens: { total: number };
			};
			const own = pi.lines
				.filter((l) => l.type === "message_end" && (l.message as { role: string }).role === "assistant")
				.reduce((n, l) => n + (l.message as { usage: { totalTokens: number } }).usage.totalTokens, 0);
			expect(stats.tokens.total).toBe(own + (end.result.usage?.totalTokens ?? 0));
		} finally {
			await pi.close();
		}
	});

	it("refuses as error results, never by throwing: an unknown agent (did you mean), a meaningless combination, a flow that does not check", async () => {
		box.write("~agent/flows/bad.md", sequence("bad", [{ id: "one", agent: "nobody" }]));
		const pi = await drive([
			{ name: "subagent", args: { agent: "ecko", task: "say hi" } },
			{ name: "subagent", args: { flow: "hello", input: "x", tasks: [{ agent: "echo", task: "y" }] } },
			{ name: "subagent", args: { flow: "bad", input: "x" } },
		]);
		try {
			const ends = toolEnds(pi.lines);
			expect(ends.map((e) => e.isError)).toEqual([true, true, true]);
			expect(textOf(ends[0])).toMatch(/^Refused: no agent `ecko`\. Did you mean `echo`\?/);
			expect(textOf(ends[1])).toMatch(
				/^Refused: choose one of `agent`, `tasks`, `chain`, `flow`; this call gives `tasks` and `flow`\./,
			);
			expect(textOf(ends[2])).toMatch(
				/^Refused: the flow `bad` cannot run:\n.*bad\.md:7:12: unknown-agent: no agent `nobody`/,
			);
		} finally {
			await pi.close();
		}
	});

	it("runs parallel tasks and a list chain on the combinators, and a chain string as a flow", async () => {
		const pi = await drive([
			{
				name: "subagent",
				args: {
					tasks: [
						{ agent: "echo", task: "first task" },
						{ agent: "judge", task: "second task" },
					],
					concurrency: 2,
					model: "scripted/scripted",
				},
			},
			{
				name: "subagent",
				args: {
					chain: [
						{ agent: "echo", task: "list input" },
						{ agent: "judge", task: "judge it" },
					],
					model: "scripted/scripted",
				},
			},
			{
				name: "subagent",
				args: { chain: "@echo -> @judge --timeout 1m", task: "chain input", model: "scripted/scripted" },
			},
		]);
		try {
			const [parallel, listed, written] = toolEnds(pi.lines);
			expect(parallel.isError).toBe(false);
			expect(textOf(parallel)).toMatch(
				/^## 1\. echo\n\nANSWER TO: first task\n\n## 2\. judge\n\nANSWER TO: second task$/,
			);
			expect(parallel.result.details.rows.map((r) => r.state)).toEqual(["done", "done"]);
			// A later step's own task goes before what the step before it answered.
			expect(listed.isError, textOf(listed)).toBe(false);
			expect(textOf(listed)).toBe("ANSWER TO: judge it");
			expect(listed.result.details.rows.map((r) => r.agent)).toEqual(["echo", "judge"]);
			expect(written.isError, textOf(written)).toBe(false);
			expect(textOf(written)).toMatch(
				/^◆ chain\nResult of the chain flow, asked: chain input\n\nANSWER TO: [\s\S]*\nok · \.pi\/runs\/.*-chain · /,
			);
			expect(written.result.details).toMatchObject({
				mode: "chain",
				rows: [
					{ agent: "echo", state: "done" },
					{ agent: "judge", state: "done" },
				],
			});
		} finally {
			await pi.close();
		}
	});
});
