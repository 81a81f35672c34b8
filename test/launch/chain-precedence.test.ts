/**
 * The precedence docs/chain.md states, for model, thinking (a model's `:level` suffix included), skills and
 * timeouts: a step's own flag against the chain-wide one against the command line's, proven on turns of the
 * scripted model (what the request carried) and on pi's own model resolution.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { chainRunOptions } from "../../src/launch/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("~agent/skills/haiku/SKILL.md", "---\nname: haiku\n---\nWrite every answer as a haiku.\n");
	project.write("~agent/skills/prose/SKILL.md", "---\nname: prose\n---\nWrite every answer as plain prose.\n");
});
afterEach(() => project.cleanup());

function check(text: string) {
	const flowText = `---\nname: c\ndescription: d\ninput: string\nchain: '${text.replace(/'/g, "''")}'\n---\n`;
	const file = project.write(".pi/flows/c.md", flowText);
	const sources = { project: true };
	const checked = checkFlowText(
		flowText,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value) throw new Error(JSON.stringify(checked.faults));
	return checked.value;
}

/** Runs a chain on the scripted model; `cli` stands for the command line's `--model` and `--timeout`. */
async function run(text: string, script: string, cli: { model?: string; timeoutMs?: number } = {}) {
	const flow = check(text);
	const host = await scriptedHost(project, script);
	const models = resolveModels(flow, host.resolveModel, cli.model);
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const extra = chainRunOptions(flow, project.cwd);
	return runFlow(flow, "the goal", {
		spawn: host.spawn,
		models: models.models,
		cwd: project.cwd,
		retryBackoffMs: 0,
		plugins: extra.plugins,
		...(cli.timeoutMs !== undefined ? { timeoutMs: cli.timeoutMs } : {}),
	});
}

const SAY_THINKING = 'turns:\n  "*":\n    - say: "{{thinking}}"\n';
const outputs = (r: Awaited<ReturnType<typeof run>>) => r.visits.map((v) => v.output);

describe("model: the command line, then the step's --model, then --global-model", () => {
	it("resolves each step's model through pi, nearest first", async () => {
		const flow = check(
			"@scout --model anthropic/claude-haiku-4-5 -> @reviewer -- --global-model anthropic/claude-sonnet-4-5",
		);
		const host = await scriptedHost(project, "turns: {}\n");
		const chainOnly = resolveModels(flow, host.resolveModel);
		if (!chainOnly.ok) throw new Error(chainOnly.errors.join("\n"));
		expect([chainOnly.models.get("scout")?.ref, chainOnly.models.get("reviewer")?.ref]).toEqual([
			"anthropic/claude-haiku-4-5",
			"anthropic/claude-sonnet-4-5",
		]);
		const cli = resolveModels(flow, host.resolveModel, "scripted");
		if (!cli.ok) throw new Error(cli.errors.join("\n"));
		expect([cli.models.get("scout")?.ref, cli.models.get("reviewer")?.ref]).toEqual([
			"scripted/scripted",
			"scripted/scripted",
		]);
	});

	it("reads names as pi does: a bare name and a name with a level resolve, an unknown one is a fault at its column", async () => {
		const flow = check("@scout --model sonnet -> @reviewer --model opus:high -> @worker --model sonet");
		const host = await scriptedHost(project, "turns: {}\n");
		const r = resolveModels(flow, host.resolveModel);
		expect(r.ok).toBe(false);
		if (r.ok) return;
		expect(r.faults.map((f) => [f.code, f.path, f.line, f.column, f.endColumn])).toEqual([
			["model-unknown", "worker", 5, 81, 86],
		]);
		expect(r.faults[0].message).toContain("unknown model `sonet`");
		expect(r.faults[0].expected?.length).toBeGreaterThan(0);
		expect(r.faults[0].expected?.some((m) => /sonnet/.test(m))).toBe(true);
		expect(r.errors).toHaveLength(1);
		const good = resolveModels(check("@scout --model sonnet -> @reviewer --model opus:high"), host.resolveModel);
		if (!good.ok) throw new Error(good.errors.join("\n"));
		// pi's resolver decides what a bare name means; the spec keeps the level for the turn.
		expect(good.models.get("scout")?.ref).toMatch(/sonnet/);
		expect(good.models.get("reviewer")).toMatchObject({ ref: expect.stringMatching(/opus/), spec: "opus:high" });
	});
});

describe("model names in flows and agent files read as pi reads them too", () => {
	it("resolves a node's and an agent's names through pi, and faults an unknown one where it is written", async () => {
		project.write(
			".pi/agents/named.md",
			"---\nname: named\ndescription: d\ntools: read\nmodel: opsu\n---\nYou are named.\n",
		);
		const text =
			"---\nname: m\ndescription: d\ninput: string\nnodes:\n  - id: a\n    agent: scout\n    model: haiku\n  - id: b\n    agent: scout\n    model: sonet:high\n  - id: c\n    agent: named\n---\n\n## a\nx\n\n## b\nx\n\n## c\nx\n";
		const file = project.write(".pi/flows/m.md", text);
		const sources = { project: true };
		const checked = checkFlowText(
			text,
			file,
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		if (!checked.value) throw new Error(JSON.stringify(checked.faults));
		const host = await scriptedHost(project, "turns: {}\n");
		const r = resolveModels(checked.value, host.resolveModel);
		if (r.ok) throw new Error("resolved");
		expect(
			r.faults.map((f) => [
				f.code,
				f.file.endsWith(".md") ? f.file.split("/").pop() : f.file,
				f.line,
				f.column,
				f.path,
			]),
		).toEqual([
			["model-unknown", "m.md", 11, 12, "b"],
			["model-unknown", "named.md", 5, 8, "c"],
		]);
		expect(r.faults[0].expected?.some((m) => /sonnet/.test(m))).toBe(true);
		expect(r.faults[1].expected?.some((m) => /opus/.test(m))).toBe(true);
	});
});

describe("thinking: the step's --thinking, its --model's :level, --global-thinking, --global-model's :level", () => {
	it("a step's own model suffix beats the chain-wide --global-thinking (issue 23, point 5)", async () => {
		const r = await run(
			"@scout --model scripted/scripted:high -> @reviewer -- --global-thinking low --global-model scripted/scripted",
			SAY_THINKING,
		);
		expect(outputs(r)).toEqual(["high", "low"]);
	});

	it("a step's --thinking beats its own model's suffix", async () => {
		const r = await run("@scout --model scripted/scripted:high --thinking minimal", SAY_THINKING);
		expect(outputs(r)).toEqual(["minimal"]);
	});

	it("--global-thinking beats --global-model's suffix; either yields to a step's own", async () => {
		const r = await run(
			"@scout -> @reviewer --thinking medium -- --global-model scripted/scripted:high --global-thinking low",
			SAY_THINKING,
		);
		expect(outputs(r)).toEqual(["low", "medium"]);
		const suffixOnly = await run(
			"@scout -> @reviewer --thinking medium -- --global-model scripted/scripted:minimal",
			SAY_THINKING,
		);
		expect(outputs(suffixOnly)).toEqual(["minimal", "medium"]);
	});

	it("the command line's --model replaces the model but keeps each step's thinking; its suffix fills the rest", async () => {
		const r = await run("@scout --model anthropic/claude-haiku-4-5:high -> @reviewer", SAY_THINKING, {
			model: "scripted/scripted:minimal",
		});
		expect(outputs(r)).toEqual(["high", "minimal"]);
	});
});

describe("skills: a step's --skill replaces --global-skill", () => {
	it("gives each step its own skills or the chain's", async () => {
		const say = 'turns:\n  "*":\n    - say: "{{system}}"\n';
		const r = await run("@scout --skill prose -> @reviewer -- --global-skill haiku", say, { model: "scripted" });
		const [scout, reviewer] = outputs(r).map(String);
		expect(scout).toContain("plain prose");
		expect(scout).not.toContain("haiku");
		expect(reviewer).toContain("haiku");
		expect(reviewer).not.toContain("plain prose");
	});
});

describe("timeouts: the command line's --timeout, then the step's --timeout, then the flow's, then 30m", () => {
	const HANG = "turns:\n  '*':\n    - hang: true\n";

	it("a step's --timeout bounds its turn", async () => {
		const r = await run("@scout --timeout 150ms", HANG, { model: "scripted" });
		expect(r).toMatchObject({ ok: false, errorKind: "timeout", error: "scout: timeout: timed out after 150ms" });
	});

	it("the command line's --timeout replaces every step's", async () => {
		const r = await run("@scout --timeout 10m", HANG, { model: "scripted", timeoutMs: 120 });
		expect(r).toMatchObject({ ok: false, errorKind: "timeout", error: "scout: timeout: timed out after 120ms" });
	});
});
