/**
 * Runs as traces where people read them: `pi-flows` as a subprocess, configured only by the standard
 * OpenTelemetry environment, exporting with the official OTLP exporter to a receiver in this test that
 * decodes protobuf with OpenTelemetry's own definitions, and JSON. The tree, names, parent links and
 * attributes are read as a backend reads them: a map over HTTP whose requests are retried after a 429 and
 * a cut stream; a run that fails, is resumed and links back; content only when the switch asks, redacted;
 * a Ctrl-C that still exports.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Answer, WireRequest } from "../../../src/provider/index.ts";
import { drawTree, type ReceivedSpan, type Receiver, startReceiver } from "../../helpers/otlp.ts";
import { agentFile, tempProject } from "../../helpers/project.ts";
import { itemOf, mapFlow, usageJson, type Wire, wireProject } from "../../helpers/wire.ts";

const INTERNAL = 1;
const CLIENT = 3;
const ERROR = 2;

let wire: Wire | undefined;
let receiver: Receiver | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
	for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
	await wire?.close();
	await receiver?.close();
	wire = undefined;
	receiver = undefined;
});

interface Ran {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** `pi-flows <args>` as a child process; `onStderr` may act on what it prints (a Ctrl-C). */
function cli(
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
	onStderr?: (all: string, child: ChildProcess) => void,
) {
	return new Promise<Ran>((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd, env });
		children.push(child);
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => {
			stderr += d;
			onStderr?.(stderr, child);
		});
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) =>
	spans.filter((s) => s.parentSpanId === parent.spanId);
const one = (spans: readonly ReceivedSpan[], test: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
	const found = spans.filter(test);
	expect(found, `${what} in\n${drawTree(spans)}`).toHaveLength(1);
	return found[0] as ReceivedSpan;
};
const rootOf = (spans: readonly ReceivedSpan[]) =>
	one(spans, (s) => s.name.startsWith("invoke_workflow ") && s.parentSpanId === "", "one root");

describe("pi-flows run exporting OTLP", () => {
	it("draws a map over HTTP as the GenAI conventions say, its 429 and cut stream as retry events (protobuf)", async () => {
		receiver = await startReceiver();
		const faults = new Map<string, Answer>([
			["item-1", { fault: "429", retryAfter: 0.05 }],
			["item-2", { fault: "cut", reply: { text: "A partial answer cut before it is whole, sent slowly to cut." } }],
		]);
		wire = await wireProject({
			script: (req: WireRequest) => {
				const f = faults.get(itemOf(req.lastUser));
				faults.delete(itemOf(req.lastUser));
				return f ?? { tools: [{ name: "submit", args: { item: itemOf(req.lastUser), note: "seen" } }] };
			},
		});
		const p = wire.project;
		p.write(".pi/flows/look.md", mapFlow("look", 3, 2));
		const r = await cli(
			["run", "look", "x", "--model", "wire/wire-1", "--project", "--runs-dir", "runs", "--retries", "4", "--json"],
			p.cwd,
			{
				...p.env,
				OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
				OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
				OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20otlp-secret-7781",
				OTEL_SERVICE_NAME: "flows-e2e",
				OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
			},
		);
		expect(r.code, r.stderr).toBe(0);
		// Exported before the command exited: nothing is awaited after the process is gone.
		const spans = receiver.spans;
		const tree = drawTree(spans);
		expect(receiver.requests.every((q) => q.contentType === "application/x-protobuf")).toBe(true);
		expect(receiver.requests[0]?.headers.authorization).toBe("Bearer otlp-secret-7781");
		expect(`${r.stdout}${r.stderr}`).not.toContain("otlp-secret-7781");
		expect(new Set(spans.map((s) => s.traceId)).size, tree).toBe(1);
		for (const s of spans) {
			expect(s.resource["service.name"]).toBe("flows-e2e");
			expect(s.resource["deployment.environment"]).toBe("test");
			expect(s.scope).toBe("pi-flows");
		}

		const runDir = (JSON.parse(r.stdout) as { runDir: string }).runDir;
		const root = rootOf(spans);
		expect(root).toMatchObject({ name: "invoke_workflow look", kind: INTERNAL, status: { code: 0 } });
		expect(root.attributes).toMatchObject({
			"gen_ai.operation.name": "invoke_workflow",
			"gen_ai.workflow.name": "look",
			"pi_flows.run.id": basename(runDir),
			"session.id": basename(runDir),
			"pi_flows.run.life": 1,
			"pi_flows.run.backend": "folder",
			// The checker's worst case: 3 items × (1 turn + 2 handoff continuations).
			"pi_flows.bound.turns": 9,
		});
		expect(root.links).toEqual([]);

		const map = one(spans, (s) => s.name === "map look", "the map's span");
		expect(map.parentSpanId).toBe(root.spanId);
		expect(map.attributes).toMatchObject({
			"pi_flows.kind": "map",
			"pi_flows.node": "look",
			"pi_flows.visit.path": "look",
		});
		const agents = childrenOf(spans, map);
		expect(agents.map((a) => a.name)).toEqual(["invoke_agent scout", "invoke_agent scout", "invoke_agent scout"]);
		expect(agents.map((a) => a.attributes["pi_flows.map.item"]).sort()).toEqual([1, 2, 3]);

		const usage = usageJson(join(p.cwd, runDir)).total;
		let input = 0;
		let output = 0;
		for (const agent of agents) {
			const item = agent.attributes["pi_flows.map.item"] as number;
			expect(agent.kind).toBe(INTERNAL);
			expect(agent.attributes).toMatchObject({
				"gen_ai.operation.name": "invoke_agent",
				"gen_ai.agent.name": "scout",
				"gen_ai.provider.name": "wire",
				"gen_ai.request.model": "wire-1",
				"pi_flows.visit.path": `look[${item}]/find`,
				"pi_flows.kind": "agent",
			});
			const chats = childrenOf(spans, agent).filter((s) => s.name === "chat wire-1");
			expect(chats.length, tree).toBe(1);
			const chat = chats[0] as ReceivedSpan;
			expect(chat.kind).toBe(CLIENT);
			expect(chat.attributes).toMatchObject({
				"gen_ai.operation.name": "chat",
				"gen_ai.provider.name": "wire",
				"gen_ai.request.model": "wire-1",
				"gen_ai.response.finish_reasons": ["tool_calls"],
				"server.address": "127.0.0.1",
				"server.port": Number(new URL(wire.server.url).port),
			});
			expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
			input += chat.attributes["gen_ai.usage.input_tokens"] as number;
			output += chat.attributes["gen_ai.usage.output_tokens"] as number;
			// Content is opt-in: nothing of the conversation without the switch.
			expect(Object.keys(chat.attributes).filter((k) => k.includes("messages") || k.includes("instructions"))).toEqual(
				[],
			);
			const retries = chat.events.filter((e) => e.name === "pi_flows.request.retry");
			const expected = item === 1 ? ["429"] : item === 2 ? ["cut"] : [];
			expect(
				retries.map((e) => e.attributes["pi_flows.retry.reason"]),
				tree,
			).toEqual(expected);
			for (const e of retries) expect(e.attributes["pi_flows.retry.attempt"]).toBe(1);
			const tool = one(childrenOf(spans, agent), (s) => s.name === "execute_tool submit", "the submit call");
			expect(tool.attributes).toMatchObject({
				"gen_ai.operation.name": "execute_tool",
				"gen_ai.tool.name": "submit",
				"gen_ai.tool.type": "function",
			});
			expect(String(tool.attributes["gen_ai.tool.call.id"])).not.toBe("");
			expect(tool.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
			expect(tool.startMs).toBeGreaterThanOrEqual(chat.startMs);
		}
		// What the chat spans say was spent is what usage.json says (the lost attempts billed nothing on this API).
		expect({ input, output }).toEqual({
			input: usage.input + usage.cacheRead + usage.cacheWrite,
			output: usage.output,
		});
		expect(root.attributes["gen_ai.usage.output_tokens"]).toBe(usage.output);
	}, 90_000);

	it("a resumed run is a new trace linked to the first life's root; replayed visits say so and send nothing (JSON, content captured and redacted)", async () => {
		receiver = await startReceiver();
		let failC = true;
		wire = await wireProject({
			script: (req) => (req.lastUser.includes("Step c") && failC ? { fault: "503" } : { text: `done ${req.turn}` }),
		});
		const p = wire.project;
		const steps = ["a", "b", "c"];
		p.write(
			".pi/flows/steps.md",
			`---\nname: steps\ndescription: three steps\ninput: string\nnodes:\n${steps.map((id) => `  - id: ${id}\n    agent: scout\n`).join("")}---\n\n${steps.map((id) => `## ${id}\n\nStep ${id}. The vault says password=hunter2-vault-secret.\n`).join("\n")}`,
		);
		const env = {
			...p.env,
			OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
			OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
			OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
		};
		const first = await cli(
			["run", "steps", "go", "--model", "wire/wire-1", "--project", "--runs-dir", "runs", "--retries", "1", "--json"],
			p.cwd,
			env,
		);
		expect(first.code, first.stderr).toBe(1);
		const runDir = (JSON.parse(first.stdout) as { runDir: string }).runDir;
		const life1 = [...receiver.spans];
		const root1 = rootOf(life1);
		expect(root1.status.code).toBe(ERROR);
		expect(root1.attributes).toMatchObject({ "error.type": "provider", "pi_flows.failure.at": "c" });
		const failed = one(
			life1,
			(s) => s.attributes["pi_flows.visit.path"] === "c" && s.name === "invoke_agent scout",
			"c",
		);
		expect(failed.status.code).toBe(ERROR);
		expect(failed.events.find((e) => e.name === "exception")?.attributes).toMatchObject({
			"exception.type": "provider",
		});
		const lostChat = one(childrenOf(life1, failed), (s) => s.name === "chat wire-1", "c's lost request");
		expect(lostChat.attributes["error.type"]).toBe("error");

		failC = false;
		const second = await cli(["resume", runDir, "--runs-dir", "runs", "--json"], p.cwd, env);
		expect(second.code, second.stderr).toBe(0);
		const life2 = receiver.spans.filter((s) => s.traceId !== root1.traceId);
		expect(life2.every((s) => s.encoding === "json")).toBe(true);
		const root2 = rootOf(life2);
		expect(root2.attributes["pi_flows.run.life"]).toBe(2);
		expect(root2.attributes["session.id"]).toBe(root1.attributes["session.id"]);
		expect(root2.links).toEqual([
			{ traceId: root1.traceId, spanId: root1.spanId, attributes: { "pi_flows.link.life": 1 } },
		]);
		// The journal keeps each life's root, which is what the link was made from.
		const lives = readFileSync(join(p.cwd, runDir, "journal.jsonl"), "utf8")
			.split("\n")
			.filter((l) => l.includes('"life_start"'))
			.map((l) => JSON.parse(l) as { trace?: string });
		expect(lives.map((l) => l.trace)).toEqual([
			`00-${root1.traceId}-${root1.spanId}-01`,
			`00-${root2.traceId}-${root2.spanId}-01`,
		]);
		const visit = (spans: readonly ReceivedSpan[], path: string) =>
			one(spans, (s) => s.name === "invoke_agent scout" && s.attributes["pi_flows.visit.path"] === path, path);
		for (const id of ["a", "b"]) {
			const replayed = visit(life2, id);
			expect(replayed.parentSpanId).toBe(root2.spanId);
			expect(replayed.attributes["pi_flows.visit.replayed"]).toBe(true);
			expect(childrenOf(life2, replayed), `${id} sent nothing again`).toEqual([]);
		}
		const c = visit(life2, "c");
		expect(c.attributes["pi_flows.visit.replayed"]).toBeUndefined();
		const chat = one(childrenOf(life2, c), (s) => s.name === "chat wire-1", "c's request");
		const input = String(chat.attributes["gen_ai.input.messages"]);
		const messages = JSON.parse(input) as { role: string; parts: { type: string; content?: string }[] }[];
		expect(messages.at(-1)?.role).toBe("user");
		expect(messages.at(-1)?.parts[0]?.content).toContain("Step c.");
		expect(input).toContain("password=***");
		expect(JSON.stringify(receiver.spans)).not.toContain("hunter2-vault-secret");
		expect(JSON.parse(String(chat.attributes["gen_ai.output.messages"]))).toEqual([
			{ role: "assistant", parts: [{ type: "text", content: "done 0" }], finish_reason: "stop" },
		]);
		expect(String(chat.attributes["gen_ai.system_instructions"])).toContain("scout");
	}, 90_000);

	it("Ctrl-C still exports before the process exits: the cut visit and the root say the run was stopped", async () => {
		receiver = await startReceiver();
		const p = tempProject();
		try {
			p.write(".pi/agents/helper.md", agentFile("helper", "read"));
			p.write(
				".pi/flows/slow.md",
				"---\nname: slow\ndescription: one slow turn\ninput: string\nnodes:\n  - id: think\n    agent: helper\n---\n\n## think\n\nThink.\n",
			);
			p.write("slow.yaml", "turns:\n  think:\n    - say: finally\n      delay: 60000\n");
			let sent = false;
			const r = await cli(
				["run", "slow", "go", "--script", "slow.yaml", "--project"],
				p.cwd,
				{ ...p.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
				(all, child) => {
					// Ctrl-C once the turn is under way.
					if (!sent && all.includes("▶ think")) {
						sent = true;
						child.kill("SIGINT");
					}
				},
			);
			expect(r.code, r.stderr).toBe(1);
			expect(r.stderr).toContain("stopping: closing every session");
			const root = rootOf(receiver.spans);
			expect(root.status.code).toBe(ERROR);
			expect(root.attributes["error.type"]).toBe("stopped");
			const think = one(receiver.spans, (s) => s.name === "invoke_agent helper", "the cut visit");
			expect(think.parentSpanId).toBe(root.spanId);
			expect(think.status.code).toBe(ERROR);
			expect(think.attributes["error.type"]).toBe("stopped");
			expect(think.endMs - think.startMs).toBeLessThan(30_000);
		} finally {
			p.cleanup();
		}
	}, 60_000);
});
