/**
 * A run inside its caller's trace: the caller's span reaches `pi-flows` as W3C `traceparent`, in the
 * environment (`TRACEPARENT`, a CI job wrapping the command) or in an MCP call's `_meta.traceparent` (an
 * agent host that traces its tool calls), and the run's root is drawn as that span's child in the same
 * trace. The real CLI as a subprocess, the official SDK client over stdio, the official exporter to a
 * receiver in this test; a malformed value is no context, never a failed run.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { spawn } from "node:child_process";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { drawTree, type ReceivedSpan, type Receiver, startReceiver } from "../../helpers/otlp.ts";
import type { TempProject } from "../../helpers/project.ts";
import { mcpProject, type Report, sdkClient } from "../mcp/fixture.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER = "00f067aa0ba902b7";

let receiver: Receiver | undefined;
let project: TempProject | undefined;
afterEach(async () => {
	await receiver?.close();
	project?.cleanup();
	receiver = undefined;
	project = undefined;
});

const otlp = (r: Receiver) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
const roots = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.name === "invoke_workflow hello");

function run(p: TempProject, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), "run", "hello", "Ada", "--project", "--script", "greet.yaml"], {
			cwd: p.cwd,
			env: { ...p.env, ...env },
		});
		let stderr = "";
		child.stderr.on("data", (d) => (stderr += d));
		child.on("close", (code) => resolve({ code, stderr }));
	});
}

describe("a run inside its caller's trace", () => {
	it("`TRACEPARENT` in the environment makes the run's root a child of the caller's span", async () => {
		receiver = await startReceiver();
		project = mcpProject();
		const ran = await run(project, { ...otlp(receiver), TRACEPARENT: `00-${TRACE}-${CALLER}-01` });
		expect(ran.code, ran.stderr).toBe(0);
		const spans = await receiver.until((s) => roots(s).length === 1);
		const [root] = roots(spans);
		expect(root, drawTree(spans)).toMatchObject({ traceId: TRACE, parentSpanId: CALLER });
		// The whole run is in the caller's trace, not only its root.
		expect(spans.every((s) => s.traceId === TRACE)).toBe(true);
		expect(spans.some((s) => s.name === "invoke_agent helper" && s.parentSpanId === root?.spanId)).toBe(true);
	}, 60_000);

	it("a malformed `TRACEPARENT` is no context: the run is a trace of its own and still runs", async () => {
		receiver = await startReceiver();
		project = mcpProject();
		const ran = await run(project, { ...otlp(receiver), TRACEPARENT: `00-${TRACE}-zz-01` });
		expect(ran.code, ran.stderr).toBe(0);
		const spans = await receiver.until((s) => roots(s).length === 1);
		expect(roots(spans)[0]).toMatchObject({ parentSpanId: "" });
		expect(roots(spans)[0]?.traceId).not.toBe(TRACE);
	}, 60_000);

	it("an MCP call's `_meta.traceparent` makes the run it starts a child of the host's span", async () => {
		receiver = await startReceiver();
		project = mcpProject();
		const client = sdkClient(undefined, "legacy");
		await client.connect(
			new StdioClientTransport({
				command: process.execPath,
				args: [cliBin(), "mcp", "--project", "--script", "greet.yaml"],
				cwd: project.cwd,
				env: { ...project.env, ...otlp(receiver) } as Record<string, string>,
				stderr: "pipe",
			}),
		);
		try {
			const r = await client.callTool({
				name: "hello",
				arguments: { input: "Ada" },
				_meta: { traceparent: `00-${TRACE}-${CALLER}-01` },
			});
			expect(r.structuredContent as Report).toMatchObject({ status: "ok", answer: "greeted Ada" });
			// A call without one starts a trace of its own.
			const other = await client.callTool({ name: "hello", arguments: { input: "Grace" } });
			expect(other.structuredContent as Report).toMatchObject({ status: "ok" });
		} finally {
			// The server flushes its spans as it exits.
			await client.close();
		}
		const spans = await receiver.until((s) => roots(s).length === 2);
		const inCaller = roots(spans).filter((s) => s.traceId === TRACE);
		expect(inCaller, drawTree(spans)).toHaveLength(1);
		expect(inCaller[0]).toMatchObject({ parentSpanId: CALLER });
		expect(roots(spans).filter((s) => s.parentSpanId === "")).toHaveLength(1);
	}, 90_000);
});
