/**
 * `/step <flow or agent> [input]`: walk a flow by hand. Before each agent turn it shows what the turn will
 * read; after it, the result; then it asks whether to continue, edit the next turn's input, or stop.
 * Turns run one at a time even inside a parallel block, so each pause is about one turn. For an agent's
 * name it plays one turn. Everything it shows is a note: drawn for the person, outside the model's context.
 * A name is looked up among the flows first, then the agents.
 */
import { resolve } from "node:path";
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { type AgentDef, loadRoster } from "../agents/index.ts";
import { createPool } from "../combinators/index.ts";
import { findFlow } from "../load/index.ts";
import type { Script } from "../pi/index.ts";
import type { Result } from "../runtime/index.ts";
import type { AskOptions, Spawn, Subagent } from "../runtime/index.ts";
import { formatUsage } from "../runtime/index.ts";
import { readCommandLine, readTimeout, type RunFlag } from "./args.ts";
import { dialogAsk } from "./ask-dialogs.ts";
import { completeLine } from "./completions.ts";
import { hostFor, sessionModel } from "./host.ts";
import { answerOf } from "./launch/index.ts";
import { launch } from "./launch/index.ts";
import { prepareLaunch, readScriptFile } from "./launch/index.ts";
import { openLiveView } from "./live/index.ts";
import { postNote, say } from "./messages.ts";
import { agentIn } from "./tool/index.ts";
import { runChildTools } from "./tool/index.ts";
import { projectSources, type TrustMemory, untrustedRefusal } from "./trust.ts";
import { COMMAND_CARDS } from "./cards.ts";

const STEP_FLAGS: RunFlag[] = ["--model", "--timeout", "--script"];
/** The choices after each turn, in the order shown (an RPC client answers with one of these strings). */
export const STEP_CHOICES = ["continue", "edit the next input", "stop"] as const;

/** Registers `/step`, for trying a flow (or an agent) turn by turn before trusting it to run alone. */
export function registerStepCommand(pi: ExtensionAPI, memory: TrustMemory): void {
	pi.registerCommand("step", {
		description: COMMAND_CARDS.step,
		getArgumentCompletions: completeLine(["flows", "agents"], STEP_FLAGS),
		handler: async (args, ctx) => {
			if (!ctx.hasUI)
				return say(
					ctx,
					"/step asks after every turn, so it needs pi's terminal or an RPC client; run the flow with /run instead.",
					"error",
				);
			const line = readCommandLine(args, STEP_FLAGS);
			if (!line.ok) return say(ctx, `/step: ${line.error}`, "error");
			const { name, input, flags } = line.value;
			if (!name) return say(ctx, "usage: /step <flow or agent> [input]", "error");
			const timeout = readTimeout(flags["--timeout"]);
			if (!timeout.ok) return say(ctx, `/step: ${timeout.error}`, "error");
			const scope = await projectSources(ctx, memory);
			const options = { model: flags["--model"], timeoutMs: timeout.value, script: flags["--script"] };
			if (findFlow(name, ctx.cwd, scope).ok) return stepFlow(pi, ctx, scope, name, input, options);
			const agent = agentIn(loadRoster(ctx.cwd, scope), name);
			if (agent.ok) return stepAgent(pi, ctx, agent.agent, input, options);
			const refusal = !scope.project
				? (untrustedRefusal(ctx.cwd, "flows", name) ?? untrustedRefusal(ctx.cwd, "agents", name))
				: undefined;
			say(ctx, `/step: ${refusal ?? `no flow named \`${name}\`, and ${agent.error}`}`, "error");
		},
	});
}

interface StepOptions {
	model?: string;
	timeoutMs?: number;
	script?: string;
}

async function stepFlow(
	pi: ExtensionAPI,
	ctx: ExtensionCommandContext,
	scope: { project?: boolean },
	name: string,
	input: string,
	o: StepOptions,
): Promise<void> {
	let asking = false;
	let waiting: string | undefined;
	// The visit whose turn ended and waits for the person: drawn ended while it waits. Once it ends, its
	// node_end says how long it was held, and the view leaves that out of its clock.
	let pausedAt: { path: string; since: number } | undefined;
	let redraw = () => {};
	const hooks = {
		opened: () => (asking = true),
		closed: () => (asking = false),
		waiting: (what: string | undefined) => (waiting = what),
		pause: (path: string | undefined) => {
			pausedAt = path === undefined ? undefined : { path, since: Date.now() };
			redraw();
		},
	};
	const request = {
		name,
		input,
		...(o.model ? { model: o.model } : {}),
		...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
		...(o.script ? { script: o.script } : {}),
	};
	const prepared = await prepareLaunch(request, ctx, scope, dialogAsk(ctx.ui, hooks));
	if (!prepared.ok) return say(ctx, [`/step ${name}: refused`, ...prepared.lines].join("\n"), "error");
	const stop = new AbortController();
	const view = openLiveView(ctx, prepared.value.flow, {
		onEscape: () => stop.abort(),
		paused: () => asking,
		status: () => waiting,
		waiting: () => pausedAt,
	});
	redraw = view.redraw;
	const gate = stepGate(pi, ctx, stop, hooks);
	try {
		const childTools = runChildTools(ctx, scope, prepared.value.host, o.model ?? (o.script ? "scripted" : undefined));
		const launched = await launch(prepared.value, {
			signal: stop.signal,
			onEvent: view.sink,
			wrapSpawn: gate,
			childTools,
		});
		postNote(pi, ctx, answerOf(prepared.value.flow.name.value, input, launched).content, { runDir: launched.runDir });
	} finally {
		view.close();
	}
}

async function stepAgent(
	pi: ExtensionAPI,
	ctx: ExtensionCommandContext,
	agent: AgentDef,
	input: string,
	o: StepOptions,
): Promise<void> {
	if (!input.trim())
		return say(ctx, `/step ${agent.name}: say what the agent should do: /step ${agent.name} <task>`, "error");
	// `--script`: the turn plays on the scripted model, its steps under the agent's name (or `*`).
	let script: Script | undefined;
	if (o.script) {
		const read = readScriptFile(resolve(ctx.cwd, o.script), [agent.name], ctx.cwd);
		if (!read.ok) return say(ctx, [`/step ${agent.name}: refused`, ...read.lines].join("\n"), "error");
		script = read.value;
	}
	const model = o.model ?? (script ? "scripted" : undefined);
	const host = await hostFor(ctx, script);
	const pool = createPool({
		cwd: ctx.cwd,
		spawn: host.spawn,
		...(model ? { model } : {}),
		...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
	});
	try {
		postNote(
			pi,
			ctx,
			readsNote(agent.name, agent.name, model ?? agent.model ?? sessionModel(ctx) ?? "pi's default", input),
		);
		postNote(pi, ctx, resultNote(agent.name, await pool.turn(agent, input)));
	} finally {
		await pool.closeAll();
	}
}

/**
 * The pause between turns, as a spawn wrapper: every turn waits for the one before it and its question,
 * shows its reads, runs, shows its result and asks what next. "edit" opens the next turn's input in pi's
 * editor before it runs.
 */
function stepGate(
	pi: ExtensionAPI,
	ctx: ExtensionCommandContext,
	stop: AbortController,
	hooks: {
		opened(): void;
		closed(): void;
		waiting(what: string | undefined): void;
		pause?(path: string | undefined): void;
	},
) {
	let queue: Promise<unknown> = Promise.resolve();
	let editNext = false;
	const turn = async (sub: Subagent, task: string, options: AskOptions | undefined): Promise<Result> => {
		const label = options?.label ?? sub.agent;
		// The person's time in the dialogs, handed back with the result: the visit leaves it out of its own.
		let held = 0;
		const person = async <T>(dialog: () => Promise<T>): Promise<T> => {
			const from = performance.now();
			try {
				return await dialog();
			} finally {
				held += performance.now() - from;
			}
		};
		let text = task;
		if (editNext && !stop.signal.aborted) {
			editNext = false;
			hooks.opened();
			text = (await person(() => ctx.ui.editor(`Edit what ${label} reads`, task)).finally(hooks.closed)) ?? task;
		}
		postNote(pi, ctx, readsNote(label, sub.agent, sub.model, text));
		const result = await sub.ask(text, options);
		postNote(pi, ctx, resultNote(label, result));
		if (stop.signal.aborted) return held ? { ...result, heldMs: held } : result;
		hooks.opened();
		hooks.waiting(`${label} ended: waiting for your choice`);
		hooks.pause?.(label);
		const next = await person(() => ctx.ui.select(`${label} ended. Next?`, [...STEP_CHOICES])).finally(() => {
			hooks.closed();
			hooks.waiting(undefined);
			hooks.pause?.(undefined);
		});
		if (next === "edit the next input") editNext = true;
		else if (next !== "continue") stop.abort();
		return { ...result, heldMs: held };
	};
	return (spawn: Spawn): Spawn =>
		async (request) => {
			const sub = await spawn(request);
			return {
				...sub,
				ask: (task, options) => {
					const run = queue.then(() => turn(sub, task, options));
					queue = run.catch(() => {});
					return run;
				},
			};
		};
}

function readsNote(label: string, agent: string, model: string, task: string): string {
	return `▸ **${label}** · ${agent} · ${model}\n\nIt reads:\n\n${fenced(task)}`;
}

function resultNote(label: string, r: Result): string {
	return `${r.ok ? "✓" : "✗"} **${label}** · ${formatUsage(r.usage)}\n\n${r.ok ? r.output : `failed: ${r.error ?? "unknown error"}`}`;
}

/** A fence longer than any backtick run inside, so a task holding code blocks shows as written. */
function fenced(text: string): string {
	const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
	const fence = "`".repeat(longest + 1);
	return `${fence}\n${text}\n${fence}`;
}
