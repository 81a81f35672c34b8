/**
 * Every chain flag reaches the turn it applies to, proven on the scripted model: the model used, the
 * skill injected into the system prompt, the thinking level set, the timeout firing, the retry happening
 * after its backoff, the budget stopping the chain, continue-on-error, and the handoff summaries.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { chainRunOptions } from "../../src/launch/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
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
	const checked = checkFlowText(
		flowText,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
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

type Chained = Awaited<ReturnType<typeof chain>>;
/** The run of a chain that ran (a test that expected one fails with what came back instead). */
function ranOf(x: Chained) {
	if (!("result" in x) || !x.result || !x.events) throw new Error(JSON.stringify(x));
	return x as Required<Pick<typeof x, "result" | "events" | "ms" | "calls">>;
}

describe("chain flags reach the turn", () => {
	it("--model: the step runs on the model named, and an unknown one is refused before any turn", async () => {
		const ok = ranOf(
			await chain(
				"@scout --model scripted/scripted:high -> @reviewer -- --global-model scripted/scripted",
				"turns:\n  '*':\n    - say: \"{{thinking}}\"\n",
				null,
			),
		);
		expect(ok.events.filter((e) => e.type === "turn_start").map((e) => (e as { model: string }).model)).toEqual([
			"scripted/scripted",
			"scripted/scripted",
		]);
		expect(ok.result.visits[0].output).toBe("high");
		const bad = await chain("@scout --model nosuch/model", "turns: {}\n", null);
		expect(bad).toMatchObject({ errors: [expect.stringContaining("scout: unknown model `nosuch/model`")] });
	});

	it("--skill: the skill's text is in the step's system prompt, and an unknown skill is a fault", async () => {
		const ran = ranOf(
			await chain(
				'@scout --skill haiku -> "plain step"',
				'turns:\n  scout:\n    - say: "{{system}}"\n  step2:\n    - say: "{{system}}"\n',
			),
		);
		expect(ran.result.visits[0].output).toContain("Write every answer as a haiku.");
		expect(ran.result.output).not.toContain("Write every answer as a haiku.");
		const bad = await chain("@scout --skill haiqu", "turns: {}\n");
		expect(bad).toMatchObject({
			faults: [
				expect.objectContaining({ code: "unknown-skill", message: expect.stringContaining("Did you mean `haiku`?") }),
			],
		});
	});

	it("--thinking (and its aliases): the level reaches the request", async () => {
		const ran = ranOf(
			await chain(
				"@scout --thinking deep -> @reviewer --thinking minimal",
				'turns:\n  "*":\n    - say: "{{thinking}}"\n',
			),
		);
		expect(ran.result.visits.map((v) => v.output)).toEqual(["high", "minimal"]);
	});

	it("--timeout: the step is cut at its bound", async () => {
		const ran = ranOf(await chain("@scout --timeout 200ms -> @reviewer", "turns:\n  scout:\n    - hang: true\n"));
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "timeout",
			failedAt: "scout",
			error: "scout: timeout: timed out after 200ms",
		});
	});

	it("--retry and --backoff: a failed step is tried again, after the wait, told how it failed", async () => {
		const ran = ranOf(
			await chain(
				"@scout --retry 1 -- --backoff 300ms",
				'turns:\n  scout:\n    - fail: flaky\n    - say: "{{task|lines:1}}"\n',
			),
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("Your last answer failed (provider: flaky)");
		expect(ran.ms).toBeGreaterThanOrEqual(300);
	});

	it("--budget-total stops the chain, with a warning first", async () => {
		const ran = ranOf(
			await chain(
				"@scout -> @reviewer -> @synthesiser -- --budget-total 1500 --budget-warning 600",
				"turns:\n  '*':\n    - say: ok\n",
			),
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "budget" });
		expect(ran.events.some((e) => e.type === "budget_warning")).toBe(true);
		expect(ran.calls).toBeLessThan(3);
	});

	it("stops at the first failure, or with --continue-on-error runs on, hands the failure on, and fails overall", async () => {
		const stop = ranOf(
			await chain("@scout -> @reviewer", "turns:\n  scout:\n    - fail: down\n  reviewer:\n    - say: never\n"),
		);
		expect(stop.calls).toBe(1);
		const on = ranOf(
			await chain(
				"@scout --continue-on-error -> @reviewer",
				'turns:\n  scout:\n    - fail: down\n  reviewer:\n    - say: "{{task}}"\n',
			),
		);
		expect(on.result).toMatchObject({ ok: false, errorKind: "child", failedAt: "scout" });
		expect(on.result.visits.find((v) => v.path === "reviewer")?.output).toContain("Outcome: failure (provider: down)");
		const names = on.events.filter((e) => e.type === "chain").map((e) => (e as { event: string }).event);
		expect(names).toEqual(["chain.started", "chain.step_failed", "chain.step_completed", "chain.failed"]);
	});

	it("hands each step the summaries, measured from the tree, capped by --max-history with a marker", async () => {
		const ran = ranOf(
			await chain(
				"@worker:one -> @worker:two -> @worker:three -> @reviewer -- --max-history 2",
				'turns:\n  one:\n    - call: write\n      args: { path: a.txt, content: a }\n    - say: wrote a\n  two:\n    - call: write\n      args: { path: a.txt, content: changed }\n    - say: changed a\n  three:\n    - call: bash\n      args: { command: rm a.txt }\n    - say: removed a\n  reviewer:\n    - say: "{{task}}"\n',
			),
		);
		const task = String(ran.result.output);
		expect(task).toContain("(1 earlier step not shown: the history keeps the last 2)");
		expect(task).toContain("Files deleted:\n- a.txt");
		const summaries = ran.events
			.filter((e) => e.type === "chain" && e.summary && (e as { step?: string }).step)
			.map((e) => (e as { summary: { filesCreated: string[]; filesModified: string[] } }).summary);
		expect(summaries[0].filesCreated).toEqual(["a.txt"]);
		expect(summaries[1].filesModified).toEqual(["a.txt"]);
	});
});
