import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { checkFlowFile, checkFlowText } from "../../src/load/index.ts";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { scriptedHost } from "../helpers/host.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const twoNodes = `---
name: pair
description: two turns
input: string
nodes:
  - id: first
    agent: scout
    reads: [input]
  - id: second
    agent: synthesiser
    reads: [input, first, first.ok]
---

## first
Say something about the input.

## second
Answer from the report under \`first\`.
`;

async function setUp(script: string, flowText = twoNodes) {
	const roster = loadRoster(project.cwd, {}, project.env);
	const checked = checkFlowText(flowText, "pair.md", roster);
	if (!checked.value) throw new Error(JSON.stringify(checked.faults));
	const host = await scriptedHost(project, script);
	return { flow: checked.value, host, roster };
}

describe("running a sequence of agent nodes", () => {
	it("composes each task from the section and the reads under their headings, and passes outputs on", async () => {
		const { flow, host } = await setUp('turns:\n  first:\n    - say: FIRST-REPORT\n  second:\n    - say: "{{task}}"\n');
		const models = resolveModels(flow, host.resolveModel, "scripted");
		if (!models.ok) throw new Error(models.errors.join());
		const events: FlowEvent[] = [];
		const result = await runFlow(flow, "the question", {
			spawn: host.spawn,
			models: models.models,
			cwd: project.cwd,
			onEvent: (e) => events.push(e),
		});
		expect(result.ok).toBe(true);
		expect(result.output).toBe(
			"Answer from the report under `first`.\n\n## input\n\nthe question\n\n## first\n\nFIRST-REPORT\n\n## first.ok\n\n```json\ntrue\n```",
		);
		expect(result.visits.map((n) => [n.path, n.ok, n.agent])).toEqual([
			["first", true, "scout"],
			["second", true, "synthesiser"],
		]);
		expect(events.map((e) => e.type)).toEqual([
			// A turn is asked for (`turn_wait`), then starts when the model is really asked (`turn_start`);
			// each assistant message's text is an event as it ends (`message`).
			"run_start",
			"node_start",
			"turn_wait",
			"turn_start",
			"message",
			"turn_end",
			"node_end",
			"node_start",
			"turn_wait",
			"turn_start",
			"message",
			"turn_end",
			"node_end",
			"run_end",
		]);
		expect(result.usage.totalTokens).toBe(result.visits[0].usage.totalTokens + result.visits[1].usage.totalTokens);
		expect(host.open()).toBe(0);
	});

	it("stops at a failing node with ok: false naming it, and closes every session", async () => {
		const { flow, host } = await setUp(
			"turns:\n  first:\n    - fail: upstream overloaded\n  second:\n    - say: never\n",
		);
		const models = resolveModels(flow, host.resolveModel, "scripted");
		if (!models.ok) throw new Error();
		const result = await runFlow(flow, "q", { spawn: host.spawn, models: models.models, cwd: project.cwd });
		expect(result).toMatchObject({ ok: false, failedAt: "first", error: "first: provider: upstream overloaded" });
		expect(result.visits).toHaveLength(1);
		expect(host.scripted?.calls()).toBe(1);
		expect(host.open()).toBe(0);
	});

	it("resolves models nearest-first: run option, node, flow, agent, then pi's settings", async () => {
		project.write("~agent/agents/scout.md", agentFile("scout", "read", "model: scripted\n"));
		const { flow, host } = await setUp("turns:\n  '*':\n    - say: x\n");
		const fromAgent = resolveModels(flow, host.resolveModel);
		// `first` takes the agent's model; `second` (synthesiser, no model) falls to pi's settings, which are empty.
		expect(fromAgent.ok).toBe(false);
		if (!fromAgent.ok) expect(fromAgent.errors).toEqual([expect.stringContaining("second: no model")]);
		const withFlowModel = checkFlowText(
			twoNodes.replace("input: string", "input: string\nmodel: scripted"),
			"pair.md",
			loadRoster(project.cwd, {}, project.env),
		);
		const models = resolveModels(withFlowModel.value!, host.resolveModel);
		expect(models.ok && [...models.models.values()].map((m) => m.source)).toEqual(["flow", "flow"]);
		const overridden = resolveModels(withFlowModel.value!, host.resolveModel, "nosuch/model");
		expect(overridden.ok).toBe(false);
		expect(host.scripted?.calls()).toBe(0);
	});

	it("refuses an unknown model before any turn, naming the node", async () => {
		const { flow, host } = await setUp(
			"turns:\n  '*':\n    - say: x\n",
			twoNodes.replace("reads: [input]\n", "reads: [input]\n    model: nosuchprovider/nosuchmodel\n"),
		);
		const models = resolveModels(flow, host.resolveModel);
		expect(models.ok).toBe(false);
		if (!models.ok) expect(models.errors[0]).toMatch(/^first: unknown model `nosuchprovider\/nosuchmodel`/);
		expect(host.scripted?.calls()).toBe(0);
	});

	it("runs the shipped explore flow: the scout really reads the README through pi's read tool", async () => {
		project.write("README.md", "# Sample\n\nThis sample project counts herons.\n");
		const roster = loadRoster(project.cwd, {}, project.env);
		const checked = checkFlowFile(`${PACKAGE_ROOT}/flows/explore.md`, roster);
		expect(checked.faults).toEqual([]);
		const { readFileSync } = await import("node:fs");
		const host = await scriptedHost(project, readFileSync(`${PACKAGE_ROOT}/flows/explore.script.yaml`, "utf8"));
		const models = resolveModels(checked.value!, host.resolveModel, "scripted");
		if (!models.ok) throw new Error();
		const result = await runFlow(checked.value!, "What does this project do?", {
			spawn: host.spawn,
			models: models.models,
			cwd: project.cwd,
		});
		expect(result.ok).toBe(true);
		expect(result.output).toContain("This sample project counts herons.");
		expect(result.visits[0].usage.toolCalls).toBe(1);
	});
});
