/**
 * Runs one `subagent` call: checks the depth bound, plans the call, then plays it on the combinators (a
 * pool turn, a bounded parallel map, `chain` for a list of steps) or as a whole flow through the same
 * launch as `/run` (a flow, or a chain string, which becomes a flow as `pi-flows chain` makes it).
 * Progress goes out on every turn event; the outcome carries the children's usage summed. Nothing here
 * needs pi's UI, so a subagent's own `subagent` tool runs the same code one level deeper.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { agentDir, loadRoster, type Sources } from "../../agents/index.ts";
import { landThePlaneDirective, resolveHandoffPolicy } from "../../handoff/index.ts";
import {
	budgetedSpawn,
	chain,
	createPool,
	DEFAULT_MAX_DEPTH,
	mapConcurrent,
	type TurnBudget,
} from "../../combinators/index.ts";
import { type AskPort, NOBODY } from "../../engine/index.ts";
import type { PiHost } from "../../pi/index.ts";
import type { Result } from "../../runtime/index.ts";
import type { Spawn, SpawnRequest } from "../../runtime/index.ts";
import type { ToolSpec } from "../../runtime/index.ts";
import type { Usage } from "../../runtime/index.ts";
import { answerOf } from "../launch/index.ts";
import { SUBAGENT_TOOL, withChildTools } from "./child-tools.ts";
import { cappedSpawn, childCap } from "./tool-cap.ts";
import { launch } from "../launch/index.ts";
import { prepareChain, prepareLaunch } from "../launch/index.ts";
import type { SubagentParams } from "./params.ts";
import { subagentParameters } from "./params.ts";
import { type CallPlan, type ChainStepPlan, planCall } from "./plan.ts";
import { Progress, type ProgressRow } from "./progress.ts";

/** Environment variable: the depth of this pi process in a tree of delegations (a pi started by a subagent). */
export const DEPTH_ENV = "PI_FLOWS_DEPTH";
/** Environment variable: how deep delegations may go. Default 2: the session, a child, a grandchild. */
export const MAX_DEPTH_ENV = "PI_FLOWS_MAX_DEPTH";

/** What a call runs with; a child's tool gets a copy one level deeper. */
export interface CallCore {
	/** What a flow launch needs of pi. */
	pi: Pick<ExtensionContext, "cwd" | "model" | "modelRegistry">;
	scope: Sources;
	ask: AskPort;
	/** Depth of the one holding the tool: 0 for the session. */
	depth: number;
	maxDepth: number;
	/** The host, opened once per tree of calls. */
	host(): Promise<PiHost>;
	/** The model of a subagent whose agent names none: the run's, so a dry run's children stay on the script. */
	defaultModel?: string;
	/** The budget of the run whose turn holds the tool: the children's turns are gated and counted by it. */
	budget?: TurnBudget;
	/**
	 * The most tools a child may have: the session's active tools, then each parent agent's (tool-cap.ts).
	 * Default: no cap (a library caller's own spawn decides).
	 */
	cap?: ReadonlySet<string>;
}

/** What the tool shows and keeps. */
export interface SubagentDetails {
	mode: CallPlan["mode"] | "refused";
	depth: number;
	ok: boolean;
	rows: ProgressRow[];
	usage?: Usage;
	runDir?: string;
	/** What was refused, one line each. */
	faults?: string[];
}

/** A call's outcome: the model's text, whether it is an error, the details, and the children's usage. */
export interface CallOutcome {
	text: string;
	isError: boolean;
	details: SubagentDetails;
	usage?: Usage;
}

/** The land-the-plane directive of a delegated turn, which has no `finish`: its answer is the handoff. */
const ANSWER_DIRECTIVE = landThePlaneDirective({ canReset: false, answerOnly: true });

/** Runs a call; `onProgress` gets the rows whenever a turn starts, uses a tool or ends. */
export async function runCall(
	core: CallCore,
	params: SubagentParams,
	signal?: AbortSignal,
	onProgress?: (details: SubagentDetails) => void,
): Promise<CallOutcome> {
	if (core.depth >= core.maxDepth) {
		return refused(
			core,
			`Refused: delegation is bounded at depth ${core.maxDepth} (${MAX_DEPTH_ENV}), and this is depth ${core.depth}. Do the task yourself.`,
		);
	}
	const planned = planCall(params, loadRoster(core.pi.cwd, core.scope));
	if (!planned.ok) return refused(core, `Refused: ${planned.message}`, planned.faults);
	const plan = planned.plan;
	const progress = new Progress();
	const details = (ok: boolean, extra: Partial<SubagentDetails> = {}): SubagentDetails => ({
		mode: plan.mode,
		depth: core.depth,
		ok,
		rows: progress.snapshot(),
		usage: progress.usage(),
		...extra,
	});
	const onEvent = (event: Parameters<Progress["fold"]>[0]) => {
		if (progress.fold(event, Date.now())) onProgress?.(details(true));
	};
	const childTools = (request: SpawnRequest) => [
		childTool({ ...core, depth: core.depth + 1, ask: NOBODY, ...budgetOf(request), cap: childCap(core.cap, request) }),
	];
	// A child never has more than its parent: the cap comes before the child's own `subagent` is handed over.
	const bind = (spawn: Spawn): Spawn => cappedSpawn(core.budget ? budgetedSpawn(spawn, core.budget) : spawn, core.cap);
	if (plan.mode === "flow" || (plan.mode === "chain" && "written" in plan)) {
		const request = {
			input: plan.input,
			...(plan.model ? { model: plan.model } : {}),
			...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
		};
		const prepared =
			plan.mode === "flow"
				? await prepareLaunch({ ...request, name: plan.flow }, core.pi, core.scope, core.ask)
				: await prepareChain(plan.written, request, core.pi, core.scope, core.ask);
		if (!prepared.ok)
			return refused(
				core,
				`Refused: ${plan.mode === "flow" ? `the flow \`${plan.flow}\`` : "the chain"} cannot run:`,
				prepared.lines,
			);
		const launched = await launch(prepared.value, {
			...(signal ? { signal } : {}),
			onEvent,
			childTools,
			wrapSpawn: bind,
		});
		const answer = answerOf(prepared.value.flow.name.value, plan.input, launched);
		const ok = launched.result.ok;
		return {
			text: answer.content,
			isError: !ok,
			details: details(ok, { runDir: launched.runDir }),
			usage: progress.usage(),
		};
	}
	const host = await core.host();
	const fallback = core.defaultModel;
	const spawn: Spawn = bind(
		withChildTools(
			fallback ? (r) => host.spawn(r.model || r.agent.model ? r : { ...r, model: fallback }) : host.spawn,
			childTools,
		),
	);
	// Delegated turns are unattended too: the watermark asks them to land, under the same switch and threshold.
	const places = {
		cwd: core.pi.cwd,
		agentDir: agentDir(),
		env: process.env,
		projectTrusted: core.scope.project ?? false,
	};
	const policy = (await resolveHandoffPolicy(places)).policy;
	const watermark = policy.enabled ? { threshold: policy.watermark, directive: ANSWER_DIRECTIVE } : undefined;
	const options = {
		cwd: core.pi.cwd,
		spawn,
		...(signal ? { signal } : {}),
		onEvent,
		...(plan.model ? { model: plan.model } : {}),
		...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
		...(watermark ? { watermark } : {}),
	};
	if (plan.mode === "chain" && "steps" in plan) {
		const result = await chain({
			...options,
			spawn: stepSpawn(spawn, plan.steps),
			steps: plan.steps.map((s) => s.agent),
			input: plan.input,
		});
		const text = result.ok ? result.output : `The chain failed at ${result.agent}: ${result.error ?? "unknown error"}`;
		return { text, isError: !result.ok, details: details(result.ok), usage: progress.usage() };
	}
	const pool = createPool(options);
	try {
		if (plan.mode === "single") {
			const r = await pool.turn(plan.agent, plan.task);
			return {
				text: r.ok ? r.output : `The subagent ${r.agent} failed: ${r.error ?? "unknown error"}`,
				isError: !r.ok,
				details: details(r.ok),
				usage: progress.usage(),
			};
		}
		const results: (Result | undefined)[] = plan.tasks.map(() => undefined);
		// A stop rejects the map once the started turns end; what ended is still reported, task by task.
		await mapConcurrent(
			plan.tasks,
			plan.concurrency,
			async (t, i) => (results[i] = await pool.turn(t.agent, t.task, { key: `${t.agent.name}[${i}]` })),
			signal,
		).catch(() => {});
		const ok = results.every((r) => r?.ok);
		const text = plan.tasks
			.map((t, i) => {
				const r = results[i];
				const body = !r
					? "(not run: the call was stopped)"
					: r.ok
						? r.output
						: `(failed: ${r.error ?? "unknown error"})`;
				return `## ${i + 1}. ${t.agent.name}${r?.ok ? "" : " (failed)"}\n\n${body}`;
			})
			.join("\n\n");
		return { text, isError: !ok && results.every((r) => !r?.ok), details: details(ok), usage: progress.usage() };
	} finally {
		await pool.closeAll();
	}
}

/** The tool a child agent gets when its `tools:` lists `subagent`: the same call, one level deeper, nobody to ask. */
export function childTool(core: CallCore): ToolSpec {
	return {
		name: SUBAGENT_TOOL,
		label: "Subagent",
		description: `Delegates work to pi-flows subagents (depth ${core.depth} of at most ${core.maxDepth}): one agent, parallel tasks, a chain, or a whole flow.`,
		parameters: subagentParameters as unknown as Record<string, unknown>,
		execute: async (args, signal) => {
			const out = await runCall(core, args as SubagentParams, signal);
			// The children's usage goes with the result, so the parent's session totals include the grandchildren.
			return {
				text: out.text,
				details: out.details,
				...(out.isError ? { isError: true } : {}),
				...(out.usage ? { usage: out.usage } : {}),
			};
		},
	};
}

/**
 * The `subagent` tool for the agents of a run started by a command: one level below this process, with
 * the run's host, nobody to ask, and the run's model (`--model`, or the script's) for agents naming none.
 */
export function runChildTools(
	pi: CallCore["pi"],
	scope: Sources,
	host: PiHost,
	runModel?: string,
): (request: SpawnRequest) => ToolSpec[] {
	const { depth, maxDepth } = depthFromEnv();
	const core: CallCore = {
		pi,
		scope,
		ask: NOBODY,
		depth: depth + 1,
		maxDepth,
		host: async () => host,
		...(runModel ? { defaultModel: runModel } : {}),
	};
	// Built per subagent: each one's tool carries that subagent's share of the run's budget, and its tools as
	// the cap of the children it delegates to.
	return (request) => [childTool({ ...core, ...budgetOf(request), cap: childCap(undefined, request) })];
}

/** The run's budget as the spawn request carries it (see `budgetedSpawn`). */
function budgetOf(request: SpawnRequest): { budget?: TurnBudget } {
	return request.budget ? { budget: request.budget } : {};
}

/** A chain step's own instruction goes before what the previous step handed it, and its bound applies. */
function stepSpawn(spawn: Spawn, steps: readonly ChainStepPlan[]): Spawn {
	const byAgent = new Map(steps.map((s) => [s.agent, s]));
	return async (request) => {
		const sub = await spawn(request);
		const step = byAgent.get(request.agent);
		if (!step || (!step.task && step.timeoutMs === undefined)) return sub;
		return {
			...sub,
			ask: (task, options) =>
				sub.ask(step.task ? `${step.task}\n\n## Output of the previous step\n\n${task}` : task, {
					...options,
					...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
				}),
		};
	};
}

function refused(core: CallCore, text: string, faults?: string[]): CallOutcome {
	return {
		text: faults?.length ? `${text}\n${faults.join("\n")}` : text,
		isError: true,
		details: { mode: "refused", depth: core.depth, ok: false, rows: [], ...(faults ? { faults } : {}) },
	};
}

/** Depth and bound from the environment. */
export function depthFromEnv(env: NodeJS.ProcessEnv = process.env): { depth: number; maxDepth: number } {
	const read = (name: string, fallback: number) => {
		const n = Number(env[name]);
		return env[name] !== undefined && Number.isInteger(n) && n >= 0 ? n : fallback;
	};
	return { depth: read(DEPTH_ENV, 0), maxDepth: read(MAX_DEPTH_ENV, DEFAULT_MAX_DEPTH) };
}
