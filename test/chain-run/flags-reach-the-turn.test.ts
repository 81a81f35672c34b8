/**
 * Every chain flag reaches the turn it applies to, proven on the scripted model: the model used, the
 * skill injected into the system prompt, the thinking level set, the timeout firing, the retry happening
 * after its backoff, the budget stopping the chain, continue-on-error, and the handoff summaries.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { chainRunOptions } from "../../src/chain/index.ts";
import { catalogueOptions, checkFlowText, type FlowEvent, resolveModels, runFlow } from "../../src/flow/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("~agent/skills/haiku/SKILL.md", "---\nname: haiku\n---\nWrite every answer as a haiku.\n");
});
afterEach(() => project.cleanup());

async function chain(text: string, script: string, runModel: string | null = "scripted") {
	const flowText = `---\nname: c\ndescription: d\ninput: string\nchain: '${text.replace(/'/g, "''")}'\n---\n`;
	const file = project.write(".pi/flows/c.md", flowText);
	const sources = { project: true };
	const checked = checkFlowText(flowText, file, loadRoster(project.cwd, sources, project.env), catalogueOptions(project.cwd, sources, project.env));
	if (!checked.value) return { faults: checked.faults };
	const host = await scriptedHost(project, script);
	const models = resolveModels(checked.value, host.resolveModel, runModel ?? undefined);
	if (!models.ok) return { errors: models.errors };
	const extra = chainRunOptions(checked.value, project.cwd);
	const events: FlowEvent[] = [];
	const started = performance.now();
	const result = await runFlow(checked.value, "the goal", {
		spawn: host.spawn,
		models: models.models,
		cwd: project.cwd,
		onEvent: (e) => events.push(e),
		retryBackoffMs: extra.retryBackoffMs ?? 0,
		plugins: extra.plugins,
		...(extra.budget ? { budget: extra.budget } : {}),
	});
	return { result, events, ms: performance.now() - started, calls: host.scripted?.calls() ?? 0 };
}

describe("chain flags reach the turn", () => {
	it("--model: the step runs on the model named, and an unknown one is refused before any turn", async () => {
		const ok = await chain("@scout --model scripted/scripted:high -> @reviewer -- --global-model scripted/scripted", "turns:\n  '*':\n    - say: \"{{thinking}}\"\n", null);
		if (!("result" in ok)) throw new Error(JSON.stringify(ok));
		expect(ok.events.filter((e) => e.type === "turn_start").map((e) => (e as { model: string }).model)).toEqual(["scripted/scripted", "scripted/scripted"]);
		expect(ok.result.visits[0].output).toBe("high");
		const bad = await chain("@scout --model nosuch/model", "turns: {}\n", null);
		expect(bad).toMatchObject({ errors: [expect.stringContaining("scout: unknown model `nosuch/model`")] });
	});

	it("--skill: the skill's text is in the step's system prompt, and an unknown skill is a fault", async () => {
		const ran = await chain('@scout --skill haiku -> "plain step"', 'turns:\n  scout:\n    - say: "{{system}}"\n  step2:\n    - say: "{{system}}"\n');
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		expect(ran.result.visits[0].output).toContain("Write every answer as a haiku.");
		expect(ran.result.output).not.toContain("Write every answer as a haiku.");
		const bad = await chain("@scout --skill haiqu", "turns: {}\n");
		expect(bad).toMatchObject({ faults: [expect.objectContaining({ code: "unknown-skill", message: expect.stringContaining("Did you mean `haiku`?") })] });
	});

	it("--thinking (and its aliases): the level reaches the request", async () => {
		const ran = await chain("@scout --thinking deep -> @reviewer --thinking minimal", 'turns:\n  "*":\n    - say: "{{thinking}}"\n');
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		expect(ran.result.visits.map((v) => v.output)).toEqual(["high", "minimal"]);
	});

	it("--timeout: the step is cut at its bound", async () => {
		const ran = await chain("@scout --timeout 200ms -> @reviewer", "turns:\n  scout:\n    - hang: true\n");
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		expect(ran.result).toMatchObject({ ok: false, errorKind: "timeout", failedAt: "scout", error: "scout: timeout: timed out after 200ms" });
	});

	it("--retry and --backoff: a failed step is tried again, after the wait, told how it failed", async () => {
		const ran = await chain("@scout --retry 1 -- --backoff 300ms", 'turns:\n  scout:\n    - fail: flaky\n    - say: "{{task|lines:1}}"\n');
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("Your last answer failed (provider: flaky)");
		expect(ran.ms).toBeGreaterThanOrEqual(300);
	});

	it("--budget-total stops the chain, with a warning first", async () => {
		const ran = await chain("@scout -> @reviewer -> @synthesiser -- --budget-total 2500 --budget-warning 1000", "turns:\n  '*':\n    - say: ok\n");
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		expect(ran.result).toMatchObject({ ok: false, errorKind: "budget" });
		expect(ran.events.some((e) => e.type === "budget_warning")).toBe(true);
		expect(ran.calls).toBeLessThan(3);
	});

	it("stops at the first failure, or with --continue-on-error runs on, hands the failure on, and fails overall", async () => {
		const stop = await chain("@scout -> @reviewer", "turns:\n  scout:\n    - fail: down\n  reviewer:\n    - say: never\n");
		if (!("result" in stop)) throw new Error();
		expect(stop.calls).toBe(1);
		const on = await chain("@scout --continue-on-error -> @reviewer", 'turns:\n  scout:\n    - fail: down\n  reviewer:\n    - say: "{{task}}"\n');
		if (!("result" in on)) throw new Error();
		expect(on.result).toMatchObject({ ok: false, errorKind: "child", failedAt: "scout" });
		expect(on.result.visits.find((v) => v.path === "reviewer")?.output).toContain("Outcome: failure (provider: down)");
		const names = on.events.filter((e) => e.type === "chain").map((e) => (e as { event: string }).event);
		expect(names).toEqual(["chain.started", "chain.step_failed", "chain.step_completed", "chain.failed"]);
	});

	it("hands each step the summaries, measured from the tree, capped by --max-history with a marker", async () => {
		const ran = await chain(
			'@worker:one -> @worker:two -> @worker:three -> @reviewer -- --max-history 2',
			'turns:\n  one:\n    - call: write\n      args: { path: a.txt, content: a }\n    - say: wrote a\n  two:\n    - call: write\n      args: { path: a.txt, content: changed }\n    - say: changed a\n  three:\n    - call: bash\n      args: { command: rm a.txt }\n    - say: removed a\n  reviewer:\n    - say: "{{task}}"\n',
		);
		if (!("result" in ran)) throw new Error(JSON.stringify(ran));
		const task = String(ran.result.output);
		expect(task).toContain("(1 earlier step not shown: the history keeps the last 2)");
		expect(task).toContain("Files deleted:\n- a.txt");
		const summaries = ran.events.filter((e) => e.type === "chain" && e.summary && (e as { step?: string }).step).map((e) => (e as { summary: { filesCreated: string[]; filesModified: string[] } }).summary);
		expect(summaries[0].filesCreated).toEqual(["a.txt"]);
		expect(summaries[1].filesModified).toEqual(["a.txt"]);
	});
});
