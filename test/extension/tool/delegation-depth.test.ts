import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rosterOf } from "../../../src/agents/index.ts";
import { withChildTools } from "../../../src/extension/tool/index.ts";
import { planCall } from "../../../src/extension/tool/plan.ts";
import { childTool, runCall } from "../../../src/extension/tool/run-call.ts";
import { NOBODY } from "../../../src/engine/index.ts";
import type { SpawnRequest } from "../../../src/runtime/subagent.ts";
import { agent } from "../helpers/flows.ts";
import { contentOf, flowResults, rpc, type Sandbox, sandbox } from "../helpers/pi-process.ts";

const def = (name: string, tools: string[] = []) => ({
	kind: "agent" as const,
	name,
	description: name,
	tools,
	prompt: "p",
	file: `/a/${name}.md`,
	source: "user" as const,
});
const roster = rosterOf([def("scout"), def("reviewer"), def("worker"), def("boss", ["read", "subagent"])]);

describe("what a subagent call may ask for", () => {
	const refusal = (params: Parameters<typeof planCall>[0]) => {
		const planned = planCall(params, roster);
		return planned.ok ? "planned" : planned.message;
	};
	it("refuses nothing to run, two modes at once, fields a mode does not take, and limits passed", () => {
		expect(refusal({})).toMatch(/^say what to run: `agent` and `task`/);
		expect(refusal({ agent: "scout", chain: "@a" })).toBe(
			"choose one of `agent`, `tasks`, `chain`, `flow`; this call gives `agent` and `chain`.",
		);
		expect(refusal({ tasks: [{ agent: "scout", task: "a" }], input: "x" })).toBe(
			"`tasks` runs several subagents in parallel and takes only `concurrency`, `model`, `timeout` beside it; drop `input`.",
		);
		expect(refusal({ agent: "scout" })).toMatch(/^`agent` needs `task`/);
		expect(refusal({ tasks: Array.from({ length: 9 }, () => ({ agent: "scout", task: "t" })) })).toMatch(
			/holds 9 tasks; one call runs at most 8/,
		);
		expect(refusal({ tasks: [{ agent: "scout", task: "t" }], concurrency: 5 })).toBe("`concurrency` is 1 to 4, not 5.");
		expect(refusal({ tasks: [{ agent: "scuot", task: "t" }] })).toMatch(
			/^task 1: no agent `scuot`\. Did you mean `scout`\?/,
		);
		expect(refusal({ agent: "scout", task: "t", timeout: "soon" })).toMatch(/^`timeout` takes a duration/);
	});

	it("reads a chain string only to refuse one that does not parse; a chain opening with a goal needs no input", () => {
		const planned = planCall({ chain: '"Find the parser" -> @reviewer --model p/strong:high --retry 1' }, roster);
		expect(planned.ok && planned.plan).toEqual({
			mode: "chain",
			written: '"Find the parser" -> @reviewer --model p/strong:high --retry 1',
			input: "Find the parser",
		});
		expect(refusal({ chain: "@scout -> @reviewer" })).toBe("the chain needs an input: give it in `task`.");
		const broken = planCall({ chain: "@scout ->", task: "x" }, roster);
		expect(broken.ok ? [] : broken.faults).toEqual([expect.stringMatching(/^chain:1:\d+: chain-/)]);
	});
});

describe("the depth bound", () => {
	it("refuses at the bound, saying so, before opening anything", async () => {
		const core = {
			pi: { cwd: "/nowhere", model: undefined, modelRegistry: undefined as never },
			scope: {},
			ask: NOBODY,
			depth: 2,
			maxDepth: 2,
			host: () => Promise.reject(new Error("must not open")),
		};
		const out = await runCall(core, { agent: "scout", task: "t" });
		expect(out).toMatchObject({
			isError: true,
			text: "Refused: delegation is bounded at depth 2 (PI_FLOWS_MAX_DEPTH), and this is depth 2. Do the task yourself.",
		});
		const tool = childTool(core);
		expect(await tool.execute({ agent: "scout", task: "t" })).toMatchObject({
			isError: true,
			text: expect.stringContaining("bounded at depth 2"),
		});
	});

	it("hands the tool to agents that list it, one level deeper, and to no one else", async () => {
		const seen: SpawnRequest[] = [];
		const spawn = withChildTools(
			async (r) => {
				seen.push(r);
				return {
					id: "x",
					agent: r.agent.name,
					model: "m",
					ask: async () => ({ agent: "x", output: "", messages: [], usage: {} as never, model: "m", ok: true }),
					close: async () => {},
				};
			},
			() => [
				childTool({
					pi: { cwd: "/", model: undefined, modelRegistry: undefined as never },
					scope: {},
					ask: NOBODY,
					depth: 1,
					maxDepth: 2,
					host: () => Promise.reject(new Error("unused")),
				}),
			],
		);
		await spawn({ agent: def("boss", ["read", "subagent"]), cwd: "/" });
		await spawn({ agent: def("scout", ["read"]), cwd: "/" });
		expect(seen[0].tools).toEqual(["read"]);
		expect(seen[0].customTools?.map((t) => t.name)).toEqual(["subagent"]);
		expect(seen[0].customTools?.[0].description).toContain("depth 1 of at most 2");
		expect(seen[1].customTools).toBeUndefined();
	});
});

describe("delegation inside a real pi run", () => {
	let box: Sandbox;
	beforeEach(() => {
		box = sandbox();
		box.write("~agent/agents/echo.md", agent("echo"));
		box.write("~agent/agents/boss.md", agent("boss", "subagent"));
		box.write(
			"~agent/flows/delegate.md",
			"---\nname: delegate\ndescription: a boss delegates\ninput: string\nnodes:\n  - id: lead\n    agent: boss\n    reads: [input]\n---\n\n## lead\n\nGet it done.\n",
		);
		box.write(
			"d.script.yaml",
			"turns:\n  lead:\n    - call: subagent\n      args: { agent: echo, task: inner job }\n    - say: 'BOSS GOT: {{result}}'\n  \"*\":\n    - say: INNER DONE\n",
		);
	});
	afterEach(() => box.cleanup());

	const answer = async (env: Record<string, string> = {}) => {
		const pi = rpc(box, { env });
		try {
			await pi.prompt("/run delegate go --script d.script.yaml");
			return contentOf(flowResults(pi.lines)[0]);
		} finally {
			await pi.close();
		}
	};

	it("an agent that lists `subagent` delegates through it; at the bound its tool refuses and says so", async () => {
		expect(await answer()).toContain("BOSS GOT: INNER DONE");
		expect(await answer({ PI_FLOWS_MAX_DEPTH: "1" })).toContain(
			"BOSS GOT: Refused: delegation is bounded at depth 1 (PI_FLOWS_MAX_DEPTH), and this is depth 1.",
		);
	});
});
