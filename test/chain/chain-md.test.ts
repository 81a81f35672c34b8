/**
 * Issue 29, point 6: pi-subagents' chains read as pi-subagents' own parser reads them
 * (nicobailon/pi-subagents `src/agents/chain-serializer.ts`; pi-vault/pi-subagents' for settings written
 * after a blank line): text before the first `##` is ignored, `reads: progress.md` is its shared progress
 * file, a step is handed the step before it, an unknown setting is ignored; and a fault points at the line
 * that says the thing. The chains are the users' own (test/fixtures/peers/), unchanged, except where a case
 * needs a shape no user's file shows (written out in full below).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rosterOf } from "../../src/agents/index.ts";
import { listFlows } from "../../src/load/index.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { CORPUS } from "../helpers/peer-corpus.ts";
import { tempProject } from "../helpers/project.ts";

const agent = (name: string) => ({
	kind: "agent" as const,
	name,
	description: name,
	tools: ["read"],
	prompt: "p",
	file: `/a/${name}.md`,
	source: "user" as const,
});
const roster = rosterOf(["scout", "planner", "worker", "reviewer", "context-builder"].map(agent));

const judge = (text: string, name: string) => checkFlowText(text, `/p/.pi/chains/${name}.chain.md`, roster);
const reads = (judged: ReturnType<typeof judge>) =>
	judged.value?.nodes.map((n) => (n.kind === "agent" ? [n.id.value, n.reads.map((r) => r.text)] : []));

describe("a pi-subagents chain file", () => {
	it("takes settings written after a blank line under the heading, as pi-vault's chains write them", () => {
		const text = readFileSync(join(CORPUS, "pi-vault/pi-subagents/chains/implement.chain.md"), "utf8");
		const judged = judge(text, "implement");
		expect(judged.faults).toEqual([]);
		// scout `as: context`, `output: context.md`; planner reads it and keeps progress; worker reads the plan.
		expect(reads(judged)).toEqual([
			["scout", ["input"]],
			["planner", ["input", "scout"]],
			["worker", ["planner", "scout"]],
		]);
		expect(judged.value?.prompts.get("worker")).toContain("`planner`'s answer below");
	});

	it("ignores the text before its first step, with a note at that line (zflow's orchestrator notes)", () => {
		const path = "ZebulonRouseFrantzich/pi-zflow/packages/pi-zflow-agents/chains/parallel-review.chain.md";
		const text = readFileSync(join(CORPUS, path), "utf8").replaceAll("zflow.", "");
		const judged = checkFlowText(
			text,
			"/p/.pi/chains/parallel-review.chain.md",
			rosterOf(
				[
					"review-correctness",
					"review-integration",
					"review-security",
					"review-logic",
					"review-system",
					"synthesizer",
				].map(agent),
			),
		);
		expect(judged.faults).toEqual([]);
		expect(judged.notes?.map((n) => `${n.code} ${n.line}`)).toEqual(["peer-note 12"]);
		expect(judged.value?.nodes.map((n) => n.id.value)).toEqual([
			"review_correctness",
			"review_integration",
			"review_security",
			"review_logic",
			"review_system",
			"synthesizer",
		]);
	});

	it("reads pi-subagents' progress file from the steps that keep it, and hands each step the one before", () => {
		const text = `---
name: full
description: scout, plan, implement, review
---

## scout
output: context.md

Gather context for {task}.

## planner
reads: context.md
output: plan.md

Plan from {previous}.

## worker
reads: plan.md
progress: true

Implement the plan.

## reviewer
reads: progress.md
tone: strict

Review all changes.
`;
		const judged = judge(text, "full");
		expect(judged.faults).toEqual([]);
		expect(reads(judged)).toEqual([
			["scout", ["input"]],
			["planner", ["scout"]],
			["worker", ["planner", "scout"]],
			["reviewer", ["worker"]],
		]);
		// `tone:` is no setting pi-subagents knows: it ignores it, and so does the run, saying so.
		expect(judged.notes?.map((n) => `${n.code} ${n.line}`)).toEqual(["peer-note 25"]);
	});

	it("puts a `{outputs.name}` no step declares at the line saying `as: name` when that line fell into a task", () => {
		// One setting after a blank line is task text to pi-subagents too (pi-vault takes two or more).
		const text = `---
name: lost
description: the as: line is below a blank line
---

## scout

as: context

Map the code for {task}.

## planner

Plan from {outputs.context}.
`;
		const judged = judge(text, "lost");
		expect(judged.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-format 8:1"]);
		expect(judged.faults[0].message).toMatch(/`as: context` here is read as the task of `## scout` \(line 6\)/);
		const nowhere = judge(text.replace("as: context", "Look closely."), "lost");
		expect(nowhere.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-format 14:1"]);
	});
});

describe("where chains are found", () => {
	it("reads `chains/**` and chains beside the agents in subfolders, as pi-subagents does", () => {
		const p = tempProject();
		try {
			const chain = readFileSync(join(CORPUS, "pi-vault/pi-subagents/chains/implement.chain.md"), "utf8");
			p.write("~agent/chains/team/implement.chain.md", chain);
			p.write(".pi/agents/zflow/review.chain.md", chain.replace("name: implement", "name: review"));
			const names = listFlows(p.cwd, { project: true }, p.env).flows.map((f) => f.name);
			expect(names).toEqual(expect.arrayContaining(["implement", "review"]));
		} finally {
			p.cleanup();
		}
	});
});
