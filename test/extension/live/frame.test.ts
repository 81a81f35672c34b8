import { describe, expect, it } from "vitest";
import { rosterOf } from "../../../src/agents/index.ts";
import { foldLive, startLive } from "../../../src/extension/live/fold.ts";
import { clock, showLive, treeOf } from "../../../src/extension/live/render.ts";
import { checkFlowText } from "../../../src/load/index.ts";
import type { FlowEvent } from "../../../src/runtime/events.ts";
import { emptyUsage } from "../../../src/runtime/usage.ts";

const roster = rosterOf(
	["scout", "synthesiser"].map((name) => ({
		kind: "agent" as const,
		name,
		description: name,
		tools: ["read"],
		prompt: "p",
		file: `/a/${name}.md`,
		source: "shipped" as const,
	})),
);
const flow = checkFlowText(
	`---
name: explore
description: d
input: string
nodes:
  - id: look
    map: [a, b]
    do:
      - id: scout
        agent: scout
        reads: [input, item]
  - id: answer
    agent: synthesiser
    reads: [input, look]
---

## scout

Look.

## answer

Answer.
`,
	"explore.md",
	roster,
).value;
if (!flow) throw new Error("the test flow does not check");

const usage = (input: number, output: number) => ({
	...emptyUsage(),
	cacheWrite: input,
	output,
	totalTokens: input + output,
});

describe("the live view", () => {
	it("draws the node tree with glyphs, the running turn with model, clock and tools, and a moving header", () => {
		const state = startLive("explore", 0);
		const events: [FlowEvent, number][] = [
			[{ type: "run_start", flow: "explore", input: "q", at: 0 }, 0],
			[{ type: "node_start", path: "look", node: "look", kind: "map" }, 0],
			[{ type: "node_start", path: "look[1]/scout", node: "scout", kind: "agent", agent: "scout" }, 100],
			[{ type: "turn_start", path: "look[1]/scout", agent: "scout", model: "p/m", subagent: "scout#1" }, 100],
			[{ type: "tool_call", path: "look[1]/scout", agent: "scout", subagent: "scout#1", tool: "read", args: {} }, 200],
			[{ type: "tool_call", path: "look[1]/scout", agent: "scout", subagent: "scout#1", tool: "read", args: {} }, 300],
			[{ type: "node_start", path: "look[2]/scout", node: "scout", kind: "agent", agent: "scout" }, 100],
			[{ type: "turn_start", path: "look[2]/scout", agent: "scout", model: "p/m", subagent: "scout#2" }, 100],
			[
				{
					type: "turn_end",
					path: "look[2]/scout",
					agent: "scout",
					model: "p/m",
					subagent: "scout#2",
					ok: true,
					usage: usage(1200, 300),
				},
				4_000,
			],
			[
				{
					type: "node_end",
					path: "look[2]/scout",
					node: "scout",
					kind: "agent",
					agent: "scout",
					ok: true,
					usage: usage(1200, 300),
				},
				4_000,
			],
		];
		for (const [e, at] of events) foldLive(state, e, at);
		expect(showLive(state, treeOf(flow), 12_000, { footer: "esc stops the run" })).toEqual([
			"● explore · 12s · 1 turn · ↑1.2k ↓300",
			"● look · map · 12s",
			"  ● scout · scout · 1/2 ended · 11s · ↑1.2k ↓300",
			"    ▸ look[1]/scout · scout · p/m · 11s · read×2",
			"○ answer · synthesiser",
			"esc stops the run",
		]);
		foldLive(
			state,
			{
				type: "node_end",
				path: "look[1]/scout",
				node: "scout",
				kind: "agent",
				agent: "scout",
				ok: false,
				usage: emptyUsage(),
				error: "provider: rate limited",
			},
			13_000,
		);
		foldLive(
			state,
			{
				type: "turn_end",
				path: "look[1]/scout",
				agent: "scout",
				model: "p/m",
				subagent: "scout#1",
				ok: false,
				usage: emptyUsage(),
			},
			13_000,
		);
		foldLive(state, { type: "run_end", flow: "explore", ok: false, usage: emptyUsage(), error: "x" }, 14_000);
		const end = showLive(state, treeOf(flow), 99_000);
		expect(end[0]).toBe("✗ explore · 14s · 2 turns · ↑1.2k ↓300");
		expect(end[2]).toBe("  ✗ scout · scout · 2 visits · 12s · ↑1.2k ↓300 · provider: rate limited");
	});

	it("cuts a long tree around what runs, saying how much each cut hides, and places a called flow's nodes under its call", () => {
		const state = startLive("explore", 0);
		foldLive(state, { type: "node_start", path: "answer/inner", node: "inner", kind: "agent", agent: "scout" }, 0);
		const rows = [
			...treeOf(flow),
			...Array.from({ length: 30 }, (_, i) => ({ depth: 0, address: `extra${i}`, id: `extra${i}`, what: "check" })),
		];
		const lines = showLive(state, rows, 1_000, { maxRows: 6 });
		expect(lines).toEqual([
			"● explore · 1s · 0 turns",
			"  … 1 above",
			"  ○ scout · scout",
			"○ answer · synthesiser",
			"  ● inner · scout · 1s",
			"○ extra0 · check",
			"  … 29 below",
		]);
		expect(clock(3_723_000)).toBe("1h02m");
	});
});
