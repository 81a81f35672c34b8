import { join } from "node:path";
import { createAgentSession, ModelRuntime, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { delegateTool, type WorkflowEvent } from "../../src/combinators/index.ts";
import { sessionDefaults, staticResources } from "../../src/pi/host.ts";
import { createScriptedModel, readScript, SCRIPTED_MODEL, SCRIPTED_PROVIDER } from "../../src/pi/index.ts";
import { agent, cleanupReal, fakeSpawn, real } from "./helpers.ts";

afterEach(cleanupReal);
const scout = agent("scout");
const reviewer = agent("reviewer");

describe("delegateTool, called directly", () => {
	it("runs one turn of the named agent and answers its output, measured under its parent", async () => {
		const fake = fakeSpawn(() => ({ output: "child answer" }));
		const events: WorkflowEvent[] = [];
		const tool = delegateTool({
			agents: [scout, reviewer],
			parentId: "explorer#1",
			cwd: "/tmp",
			spawn: fake.spawn,
			onEvent: (e) => events.push(e),
		});
		expect(tool).toMatchObject({ name: "subagent", parameters: { type: "object", required: ["agent", "task"] } });
		const out = await tool.execute("call-1", { agent: "scout", task: "look" });
		expect(out.content).toEqual([{ type: "text", text: "child answer" }]);
		expect(out.isError).toBeUndefined();
		expect(out.details).toMatchObject({ parentId: "explorer#1", depth: 0, result: { ok: true, agent: "scout" } });
		expect(events.find((e) => e.type === "spawn")).toMatchObject({ parent: "explorer#1", agent: "scout" });
		expect(fake.open()).toBe(0);
	});

	it("refuses at the depth bound and says so, spawning nothing; the bound defaults to 2", async () => {
		const fake = fakeSpawn();
		const grandchild = delegateTool({ agents: [scout], parentId: "scout#3", cwd: "/tmp", spawn: fake.spawn, depth: 2 });
		const out = await grandchild.execute("c", { agent: "scout", task: "look" });
		expect(out).toMatchObject({ isError: true, details: { refused: "depth", depth: 2 } });
		expect(out.content[0].text).toContain("bounded at depth 2");
		expect(fake.requests).toHaveLength(0);
		const child = delegateTool({ agents: [scout], parentId: "scout#2", cwd: "/tmp", spawn: fake.spawn, depth: 1 });
		expect((await child.execute("c", { agent: "scout", task: "look" })).isError).toBeUndefined();
	});

	it("refuses a name outside its roster rather than picking a neighbour", async () => {
		const fake = fakeSpawn();
		const tool = delegateTool({ agents: [scout], parentId: "p", cwd: "/tmp", spawn: fake.spawn });
		const out = await tool.execute("c", { agent: "scuot", task: "look" });
		expect(out).toMatchObject({ isError: true, details: { refused: "unknown-agent" } });
		expect(out.content[0].text).toContain("The agents are: scout");
		expect(fake.requests).toHaveLength(0);
	});

	it("answers a failed child's error, and an aborted call as aborted", async () => {
		const fake = fakeSpawn(() => ({ ok: false, error: "quota", errorKind: "provider" }));
		const tool = delegateTool({ agents: [scout], parentId: "p", cwd: "/tmp", spawn: fake.spawn });
		expect((await tool.execute("c", { agent: "scout", task: "t" })).content[0].text).toBe(
			"The subagent scout failed: quota",
		);
		const controller = new AbortController();
		controller.abort();
		const aborted = await tool.execute("c", { agent: "scout", task: "t" }, controller.signal);
		expect(aborted).toMatchObject({ isError: true, details: { result: { errorKind: "aborted" } } });
	});
});

describe("delegateTool inside a real pi session", () => {
	async function parentSession(script: string, depth: number) {
		const r = await real(script);
		const read = readScript(script, "inline.yaml");
		if (!read.value) throw new Error("bad script");
		const runtime = await ModelRuntime.create({
			authPath: join(r.project.agentDir, "auth.json"),
			modelsPath: join(r.project.agentDir, "models.json"),
			refreshOnCreate: false,
		});
		const scripted = createScriptedModel(read.value);
		runtime.registerNativeProvider(scripted.provider);
		const model = runtime.getModel(SCRIPTED_PROVIDER, SCRIPTED_MODEL);
		if (!model) throw new Error("no scripted model");
		const tool = delegateTool({
			agents: [scout],
			parentId: "explorer#1",
			cwd: r.project.cwd,
			spawn: r.host.spawn,
			model: "scripted",
			depth,
		});
		const { session } = await createAgentSession({
			cwd: r.project.cwd,
			agentDir: r.project.agentDir,
			modelRuntime: runtime,
			model,
			thinkingLevel: "off",
			resourceLoader: staticResources("You are the explorer."),
			tools: ["subagent"],
			customTools: [tool as unknown as ToolDefinition],
			...sessionDefaults(r.project.cwd),
		});
		scripted.bind(session.sessionId, "explorer");
		return { r, session };
	}
	const script =
		'turns:\n  explorer:\n    - call: subagent\n      args: { agent: scout, task: look around }\n    - say: "child said: {{result}}"\n  scout:\n    - say: "SCOUT saw {{task}}"\n';

	it("is a tool pi accepts: the model calls it and reads the child's answer", async () => {
		const { r, session } = await parentSession(script, 0);
		await session.prompt("explore", { expandPromptTemplates: false });
		expect(session.getLastAssistantText()).toBe("child said: SCOUT saw look around");
		session.dispose();
		expect(r.host.open()).toBe(0);
	});

	it("at the bound, the model reads the refusal instead of a missing tool", async () => {
		const { r, session } = await parentSession(script, 2);
		await session.prompt("explore", { expandPromptTemplates: false });
		expect(session.getLastAssistantText()).toContain("child said: Refused: delegation is bounded at depth 2");
		session.dispose();
		expect(r.host.scripted?.calls()).toBe(0);
	});
});
