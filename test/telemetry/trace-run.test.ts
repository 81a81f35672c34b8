/**
 * The trace a life makes, read from the SDK's own in-memory exporter (the end-to-end tests read it off
 * the wire): free when nothing records; every kind's visit is a span named for its kind, a kind the
 * tracer has never heard of included (a `wait` node); a map item and a loop round say which; an ask's span
 * says how it was answered and after how long; the reuse fact and in-doubt reruns are attributes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { resolveModels, scriptedAsk } from "../../src/engine/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { runsHome, startRun } from "../../src/runs/index.ts";
import type { FlowEvent } from "../../src/runtime/index.ts";
import { emptyUsage } from "../../src/runtime/index.ts";
import { formatTraceparent, parseTraceparent, traceRun } from "../../src/telemetry/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

let project: TempProject;
let exporter: InMemorySpanExporter;
let provider: TracerProvider;
beforeEach(() => {
	project = tempProject();
	exporter = new InMemorySpanExporter();
	provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
});
afterEach(async () => {
	await provider.shutdown();
	project.cleanup();
});

function checked(name: string, text: string): CheckedFlow {
	const file = project.write(`.pi/flows/${name}.md`, text);
	const sources = { project: true };
	const c = checkFlowText(
		text,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!c.value) throw new Error(JSON.stringify(c.faults));
	return c.value;
}

async function run(flow: CheckedFlow, script: string, traced: boolean, onEvent?: (e: FlowEvent) => void) {
	const host = await scriptedHost(project, script);
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join());
	const out = await startRun(flow, "go", {
		runsHome: runsHome(project.cwd),
		keyDir: project.agentDir,
		spawn: host.spawn,
		models: models.models,
		cwd: project.cwd,
		scripts: new Map(),
		somebodyThere: true,
		ask: scriptedAsk({ approve: "yes" }),
		retryBackoffMs: 0,
		...(onEvent ? { onEvent } : {}),
		...(traced ? { telemetry: { tracer: provider.getTracer("pi-flows") } } : {}),
	});
	if ("refused" in out) throw new Error(out.refused);
	return out;
}

const attr = (s: ReadableSpan, key: string) => s.attributes[key];
const parentOf = (spans: readonly ReadableSpan[], s: ReadableSpan) =>
	spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);

const FLOW = flowOf(
	"kinds",
	`  - id: items
    map: [a, b]
    do:
      - id: work
        agent: scout
        reads: [item]
  - id: polish
    loop: pass.output.done
    max: 2
    do:
      - id: pass
        agent: scout
        output: { done: boolean }
  - id: approve
    ask: Ship it?
    confirm: true
`,
	{ work: "Work on `item`.", pass: "Polish." },
);
const SCRIPT = "turns:\n  work:\n    - say: done\n  pass:\n    - call: submit\n      args: { done: true }\n";

describe("a life's trace", () => {
	it("costs nothing when no SDK is registered: no listener, no request events, no context kept", async () => {
		const events: FlowEvent[] = [];
		const out = await run(checked("kinds", FLOW), SCRIPT, false, (e) => events.push(e));
		expect(out.result.ok).toBe(true);
		expect(events.some((e) => e.type === "request_start" || e.type === "tool_end")).toBe(false);
		expect(exporter.getFinishedSpans()).toEqual([]);
		const bare = traceRun({ flow: "kinds" });
		expect(bare).toMatchObject({ recording: false });
		expect(bare.onEvent).toBeUndefined();
		expect(bare.traceparent).toBeUndefined();
	});

	it("names each visit for its kind, under its block, with its map item, loop round and an ask's wait", async () => {
		const out = await run(checked("kinds", FLOW), SCRIPT, true);
		expect(out.result.ok, out.result.error).toBe(true);
		const spans = exporter.getFinishedSpans();
		const root = spans.find((s) => !s.parentSpanContext) as ReadableSpan;
		expect(root.name).toBe("invoke_workflow kinds");
		const visit = (path: string) =>
			spans.find(
				(s) => attr(s, "pi_flows.visit.path") === path && !/^(chat|execute_tool) /.test(s.name),
			) as ReadableSpan;
		expect(visit("items").name).toBe("map items");
		expect(visit("polish").name).toBe("loop polish");
		expect(visit("approve").name).toBe("ask approve");
		for (const path of ["items", "polish", "approve"]) expect(parentOf(spans, visit(path))).toBe(root);
		const work = visit("items[2]/work");
		expect(work.name).toBe("invoke_agent scout");
		expect(work.kind).toBe(SpanKind.INTERNAL);
		expect(parentOf(spans, work)).toBe(visit("items"));
		expect(work.attributes).toMatchObject({
			"pi_flows.map.item": 2,
			"gen_ai.provider.name": "scripted",
			"gen_ai.request.model": "scripted",
		});
		const pass = visit("polish#1/pass");
		expect(parentOf(spans, pass)).toBe(visit("polish"));
		expect(pass.attributes).toMatchObject({ "pi_flows.loop.round": 1 });
		expect(visit("approve").attributes).toMatchObject({ "pi_flows.kind": "ask", "pi_flows.ask.answer": "answer" });
		expect(typeof attr(visit("approve"), "pi_flows.ask.wait_ms")).toBe("number");
		const chat = spans.find((s) => s.name === "chat scripted" && parentOf(spans, s) === work) as ReadableSpan;
		expect(chat.kind).toBe(SpanKind.CLIENT);
		expect(chat.attributes).toMatchObject({
			"gen_ai.operation.name": "chat",
			"gen_ai.response.finish_reasons": ["stop"],
		});
		// The worst case the checker computed is on each block and on the root: 2 items × (1 + 2 continuations).
		expect(attr(visit("items"), "pi_flows.bound.turns")).toBe(6);
		expect(attr(work, "pi_flows.bound.turns")).toBeUndefined();
		expect(attr(root, "pi_flows.bound.waits")).toBe(true);
	});

	it("draws each swarm member's requests and tool calls as `chat` and `execute_tool` spans under the swarm's visit", async () => {
		const flow = checked(
			"crowd",
			flowOf("crowd", "  - id: survey\n    swarm: [{ agent: scout, count: 2 }, reviewer]\n    rounds: 2\n", {
				survey: "Survey the tree.",
			}),
		);
		const out = await run(flow, 'turns:\n  "*":\n    - call: ls\n      args: { path: "." }\n    - say: looked\n', true);
		expect(out.result.ok, out.result.error).toBe(true);
		const spans = exporter.getFinishedSpans();
		const survey = spans.find((s) => s.name === "swarm survey") as ReadableSpan;
		expect(survey, spans.map((s) => s.name).join(", ")).toBeDefined();
		const chats = spans.filter((s) => s.name === "chat scripted");
		// Three members, two rounds, two requests a turn (the tool call, then the answer): every one the swarm
		// visit's child, none left open.
		expect(chats).toHaveLength(12);
		for (const c of chats) {
			expect(parentOf(spans, c)).toBe(survey);
			expect(c.attributes).toMatchObject({ "gen_ai.operation.name": "chat" });
		}
		expect(chats.filter((c) => String(attr(c, "gen_ai.response.finish_reasons")) === "stop")).toHaveLength(6);
		const tools = spans.filter((s) => s.name === "execute_tool ls");
		expect(tools).toHaveLength(6);
		for (const t of tools) expect(parentOf(spans, t)).toBe(survey);
		// The members' calls are the visit's in its journal too, so a cut after a writing one is in doubt.
		const journal = readFileSync(join(out.runDir, "journal.jsonl"), "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l) as { type: string; path?: string; tool?: string });
		expect(journal.filter((e) => e.type === "tool_call" && e.path === "survey" && e.tool === "ls")).toHaveLength(6);
	});

	it("draws a kind it has no code for, fails a visit with status and exception, and reads the reuse fact", () => {
		const t = traceRun({
			flow: "later",
			tracer: provider.getTracer("pi-flows"),
			bounds: new Map([["pause/cool", { turns: 0, ms: 90_000, waits: false }]]),
			inDoubt: ["edit"],
		});
		const usage = emptyUsage();
		const events: FlowEvent[] = [
			{ type: "node_start", path: "pause", node: "pause", kind: "loop" },
			{ type: "node_start", path: "pause#1/cool", node: "cool", kind: "wait" },
			{ type: "node_end", path: "pause#1/cool", node: "cool", kind: "wait", ok: true, usage },
			{ type: "node_end", path: "pause", node: "pause", kind: "loop", ok: true, usage },
			{ type: "node_start", path: "edit", node: "edit", kind: "agent", agent: "coder", model: "anthropic/claude-x" },
			{
				type: "node_end",
				path: "edit",
				node: "edit",
				kind: "agent",
				agent: "coder",
				ok: false,
				error: "provider: the key password=abc12345 was refused",
				errorKind: "provider",
				usage,
			},
			// What the reuse work will record on a visit's end; read by the one hook, `reuseFactOf`.
			{
				type: "node_end",
				path: "scan",
				node: "scan",
				kind: "agent",
				agent: "scout",
				ok: true,
				usage,
				replayed: true,
				reused: { from: "run-1/scan" },
			} as FlowEvent,
		];
		for (const e of events) t.onEvent?.(e);
		t.end({ ok: false, error: "edit: provider: refused", errorKind: "child", failedAt: "edit" });
		const spans = exporter.getFinishedSpans();
		const cool = spans.find((s) => s.name === "wait cool") as ReadableSpan;
		expect(cool.attributes).toMatchObject({
			"pi_flows.kind": "wait",
			"pi_flows.loop.round": 1,
			"pi_flows.bound.ms": 90_000,
		});
		expect(parentOf(spans, cool)?.name).toBe("loop pause");
		const edit = spans.find((s) => s.name === "invoke_agent coder") as ReadableSpan;
		expect(edit.attributes).toMatchObject({
			"gen_ai.provider.name": "anthropic",
			"gen_ai.request.model": "claude-x",
			"pi_flows.visit.in_doubt": true,
			"error.type": "provider",
		});
		expect(edit.status).toEqual({ code: SpanStatusCode.ERROR, message: "provider: the key password=*** was refused" });
		expect(edit.events.map((e) => [e.name, e.attributes?.["exception.type"]])).toEqual([["exception", "provider"]]);
		const scan = spans.find((s) => s.name === "invoke_agent scout") as ReadableSpan;
		expect(scan.attributes).toMatchObject({
			"pi_flows.visit.replayed": true,
			"pi_flows.visit.reused": true,
			"pi_flows.visit.reused_from": "run-1/scan",
		});
		expect(scan.endTime).toEqual(scan.startTime);
		const root = spans.find((s) => s.name === "invoke_workflow later") as ReadableSpan;
		expect(root.attributes).toMatchObject({ "error.type": "child", "pi_flows.failure.at": "edit" });
	});

	it("keeps a span's context as traceparent and reads it back; anything else reads as nothing", () => {
		const span = provider.getTracer("t").startSpan("x");
		const text = formatTraceparent(span.spanContext());
		expect(text).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
		const { traceId, spanId, traceFlags } = span.spanContext();
		expect(parseTraceparent(text)).toEqual({ traceId, spanId, traceFlags, isRemote: true });
		span.end();
		for (const bad of [undefined, 42, "", "00-0000-1-01", `00-${"0".repeat(32)}-${"1".repeat(16)}-01`])
			expect(parseTraceparent(bad)).toBeUndefined();
	});
});
