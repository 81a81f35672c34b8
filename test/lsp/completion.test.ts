/**
 * Completion through a real client: agent names with their descriptions, keys by where the cursor is, the
 * addresses a node can read (typed from the last version that checked, while the text does not parse), an
 * enum's values after `==`, flow names, and nodes written in flow style on one line.
 */
import type { CompletionItem } from "vscode-languageserver-protocol";
import { describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { ERROR_TYPE, HANDOFF_TYPE, typeToString } from "../../src/language/index.ts";
import { listFlows } from "../../src/load/index.ts";
import { find } from "./client.ts";
import { FLOW, serverPerFile } from "./fixture.ts";

const lsp = serverPerFile();

/** Opens `text`, then completes right after the first `needle` in it. */
async function completeAfter(text: string, needle: string, file = lsp.project.file): Promise<CompletionItem[]> {
	const uri = lsp.client.open(file, text);
	await lsp.client.diagnostics(uri, 1);
	const at = find(text, needle, needle.length);
	return lsp.client.completion(uri, at.line, at.character);
}

const labels = (items: CompletionItem[]) => items.map((i) => i.label);

describe("completion", () => {
	it("offers the roster's agents after `agent:`, each with its description, replacing what was typed", async () => {
		const text = FLOW.replace("agent: helper\n    reads: [input, plan", "agent: he\n    reads: [input, plan");
		const items = await completeAfter(text, "agent: he");
		const roster = loadRoster(lsp.project.cwd, { project: true }, lsp.project.env);
		expect(labels(items)).toEqual(
			[...roster.entries.values()]
				.filter((a) => a.kind === "agent")
				.map((a) => a.name)
				.sort(),
		);
		const at = find(text, "agent: he", 7);
		expect(items.find((i) => i.label === "helper")).toEqual({
			label: "helper",
			kind: 7,
			sortText: expect.any(String),
			detail: "agent · project",
			documentation: "Helps with small tasks.",
			textEdit: { range: { start: at, end: { line: at.line, character: at.character + 2 } }, newText: "helper" },
		});
	});

	it("offers a node's remaining keys by its kind, every kind key to a node without one, and the flow's keys at the top", async () => {
		const inNode = await completeAfter(
			FLOW.replace("plan.output.tasks]\n", "plan.output.tasks]\n    \n"),
			"plan.output.tasks]\n    ",
		);
		expect(labels(inNode)).toEqual([
			"among",
			"output",
			"memory",
			"verdict",
			"retry",
			"timeout",
			"model",
			"thinking",
			"tools",
			"skills",
			"handoff",
			"pane",
			"openInHerdr",
			"reuse",
			"on-fail",
		]);
		expect(inNode[0].textEdit).toEqual({
			range: { start: { line: 12, character: 4 }, end: { line: 12, character: 4 } },
			newText: "among: ",
		});
		lsp.client.closeAll();
		const newNode = await completeAfter(FLOW.replace("  - id: gate\n", "  - \n  - id: gate\n"), "tasks]\n  - ");
		expect(labels(newNode)).toEqual([
			"id",
			"agent",
			"agent-from",
			"choice",
			"parallel",
			"map",
			"map-from",
			"loop",
			"check",
			"commit",
			"ask",
			"ask-from",
			"flow",
			"swarm",
			"on-fail",
		]);
		lsp.client.closeAll();
		const top = await completeAfter(FLOW.replace("nodes:\n", "mo\nnodes:\n"), "input: string\nmo");
		expect(labels(top)).toEqual(["model", "timeout", "chain", "budget", "handoff", "transport"]);
	});

	it("offers the addresses visible at a node in an unclosed `reads: [`, typed from the version that last checked", async () => {
		const uri = lsp.client.open(lsp.project.file, FLOW);
		expect((await lsp.client.diagnostics(uri, 1)).diagnostics).toEqual([]);
		const text = FLOW.replace("reads: [input, plan.output.tasks]", "reads: [input, pl");
		lsp.client.change(uri, 2, text);
		expect((await lsp.client.diagnostics(uri, 2)).diagnostics.map((d) => d.code)).toEqual(["yaml-syntax"]);
		const at = find(text, "reads: [input, pl", 17);
		const items = await lsp.client.completion(uri, at.line, at.character);
		expect(items.map((i) => [i.label, i.detail])).toEqual([
			["input", "string"],
			["diff", "text"],
			["plan", "{ tasks: [string], status: ready | blocked }"],
			["plan.output", "{ tasks: [string], status: ready | blocked }"],
			["plan.output.tasks", "[string]"],
			["plan.output.status", "ready | blocked"],
			["plan.ok", "boolean"],
			["plan.error", typeToString(ERROR_TYPE)],
			["plan.error.kind", typeToString(ERROR_TYPE.fields[0].type)],
			["plan.error.message", "string"],
			["plan.handoff", typeToString(HANDOFF_TYPE)],
		]);
		expect(items[4].textEdit).toEqual({
			range: { start: { line: at.line, character: at.character - 2 }, end: at },
			newText: "plan.output.tasks",
		});
	});

	it("offers an enum's values after `==` in a condition, quoted, and replaces an opened quote", async () => {
		const bare = await completeAfter(FLOW.replace('status == "ready"', "status == "), "status == ");
		const at = find(FLOW, 'status == "ready"', 10);
		expect(bare.map((i) => [i.label, i.detail, i.textEdit])).toEqual([
			["ready", "plan.output.status: ready | blocked", { range: { start: at, end: at }, newText: '"ready"' }],
			["blocked", "plan.output.status: ready | blocked", { range: { start: at, end: at }, newText: '"blocked"' }],
		]);
		lsp.client.closeAll();
		const quoted = await completeAfter(FLOW.replace('status == "ready"', 'status == "r"'), 'status == "r');
		expect(quoted.map((i) => i.textEdit)).toEqual([
			{ range: { start: at, end: { line: at.line, character: at.character + 3 } }, newText: '"ready"' },
			{ range: { start: at, end: { line: at.line, character: at.character + 3 } }, newText: '"blocked"' },
		]);
	});

	it("offers the flows a `flow:` node can call", async () => {
		const items = await completeAfter(
			FLOW.replace("agent: helper\n    reads: [input, plan", "flow: \n    reads: [input, plan"),
			"flow: ",
		);
		expect(labels(items)).toEqual(
			listFlows(lsp.project.cwd, { project: true }, lsp.project.env).flows.map((f) => f.name),
		);
		expect(labels(items)).toContain("mine");
	});

	it("completes agents, keys and addresses in nodes written in flow style on one line", async () => {
		const file = lsp.project.write(".pi/flows/inline.md", "");
		const text =
			"---\nname: inline\ndescription: d\ninput: string\nnodes: [{ id: look, agent: scout, reads: [input] }, { id: answer, agent: synthesiser, reads: [input, lo] }]\n---\n## look\nx\n## answer\ny\n";
		expect(labels(await completeAfter(text, "reads: [input, lo", file))).toEqual([
			"input",
			"diff",
			"look",
			"look.output",
			"look.ok",
			"look.error",
			"look.error.kind",
			"look.error.message",
			"look.handoff",
		]);
		lsp.client.closeAll();
		expect(labels(await completeAfter(text, "agent: sc", file))).toContain("scout");
		lsp.client.closeAll();
		const keys = await completeAfter(
			text.replace("{ id: answer, agent", "{ id: answer, t, agent"),
			"{ id: answer, t",
			file,
		);
		expect(labels(keys)).toEqual([
			"among",
			"output",
			"memory",
			"verdict",
			"retry",
			"timeout",
			"model",
			"thinking",
			"tools",
			"skills",
			"handoff",
			"pane",
			"openInHerdr",
			"reuse",
			"on-fail",
		]);
	});

	it("offers a map's item and a loop's previous turns and ledger inside them, and the loop's body in its condition", async () => {
		const file = lsp.project.write(".pi/flows/rounds.md", "");
		const text = [
			"---",
			"name: rounds",
			"description: d",
			"input: string",
			"nodes:",
			"  - id: plan",
			"    agent: planner",
			"    output: { tasks: [{ text: string }] }",
			"  - id: each",
			"    map-from: plan.output.tasks",
			"    max: 3",
			"    do:",
			"      - id: pair",
			"        loop: review.output.approved",
			"        max: 2",
			"        ledger: pair",
			"        do:",
			"          - id: code",
			"            agent: coder",
			"            reads: [item.text]",
			"          - id: review",
			"            agent: reviewer",
			"            verdict: pair",
			"            reads: [code]",
			"---",
			"## plan\np\n## code\nc\n## review\nr\n",
		].join("\n");
		const uri = lsp.client.open(file, text);
		expect((await lsp.client.diagnostics(uri, 1)).diagnostics).toEqual([]);
		const reads = find(text, "reads: [item.text", 8);
		expect(labels(await lsp.client.completion(uri, reads.line, reads.character))).toEqual([
			...["input", "diff", "item", "item.text", "pair.previous.code", "pair.previous.review", "pair.ledger"],
			...[
				"plan",
				"plan.output",
				"plan.output.tasks",
				"plan.ok",
				"plan.error",
				"plan.error.kind",
				"plan.error.message",
				"plan.handoff",
			],
		]);
		const loop = find(text, "loop: review", 6);
		expect(labels(await lsp.client.completion(uri, loop.line, loop.character))).toEqual([
			...["input", "item", "item.text", "pair.previous.code", "pair.previous.review", "pair.ledger"],
			...[
				"plan",
				"plan.output",
				"plan.output.tasks",
				"plan.ok",
				"plan.error",
				"plan.error.kind",
				"plan.error.message",
				"plan.handoff",
			],
			...["code.ok", "code.error", "code.error.kind", "code.error.message", "code.handoff"],
			...[
				"review",
				"review.output",
				"review.output.approved",
				"review.output.remarks",
				"review.ok",
				"review.error",
				"review.error.kind",
				"review.error.message",
				"review.handoff",
			],
		]);
	});

	it("offers the sections still missing after `## ` in the body", async () => {
		const text = FLOW.replace("## finish\nFinish.\n", "## \n");
		expect(labels(await completeAfter(text, "Do it.\n\n## "))).toEqual(["finish"]);
	});

	it("completes inside a `chain:` string: agents after `@`, flows after `flow:`, the flags that may stand there, nothing inside a task", async () => {
		const chain = (value: string) => `---\nname: c\ndescription: d\ninput: string\nchain: ${value}\n---\n`;
		const agents = [...loadRoster(lsp.project.cwd, { project: true }, lsp.project.env).entries.values()]
			.filter((a) => a.kind === "agent")
			.map((a) => `@${a.name}`)
			.sort();
		const afterArrow = await completeAfter(chain("@planner -> @he"), "-> @he");
		expect(labels(afterArrow)).toEqual(agents);
		const at = find(chain("@planner -> @he"), "-> @he", 3);
		expect(afterArrow.find((i) => i.label === "@helper")?.textEdit).toEqual({
			range: { start: at, end: { line: at.line, character: at.character + 3 } },
			newText: "@helper",
		});
		lsp.client.closeAll();
		const start = await completeAfter(chain("'"), "chain: '");
		expect(labels(start).slice(0, agents.length)).toEqual(agents);
		expect(labels(start).slice(agents.length)).toContain("flow:explore");
		expect(
			labels(start)
				.slice(agents.length)
				.every((l) => l.startsWith("flow:")),
		).toBe(true);
		lsp.client.closeAll();
		const stepFlags = await completeAfter(chain("@planner --th"), "--th");
		expect(labels(stepFlags)).toContain("--thinking");
		expect(labels(stepFlags)).toContain("--model");
		lsp.client.closeAll();
		const globalFlags = await completeAfter(chain("@planner -> @helper -- --re"), "-- --re");
		expect(labels(globalFlags)).toContain("--retry");
		expect(labels(globalFlags)).not.toContain("--model");
		lsp.client.closeAll();
		const levels = await completeAfter(chain("@planner --thinking "), "--thinking ");
		expect(labels(levels)).toContain("high");
		lsp.client.closeAll();
		expect(await completeAfter(chain('@planner "look at @he'), "look at @he")).toEqual([]);
	});
});
