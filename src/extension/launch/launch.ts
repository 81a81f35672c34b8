/**
 * Runs a prepared flow in its run folder: the spawn wrapped for delegation (agents that list `subagent`)
 * and for the caller (a `/step` pause), the flow's budget and chain settings applied, the run's own stop
 * linked to the caller's, and `result.json` written whatever happened. `/run`, `/step` and the `subagent` tool all start runs
 * here, so they refuse, run and record alike.
 */
import { createBashCheck, type FlowResult, runFlow } from "../../flow/index.ts";
import { stopReason } from "../../runtime/abort.ts";
import type { EventSink } from "../../runtime/events.ts";
import type { Spawn, SpawnRequest } from "../../runtime/subagent.ts";
import type { ToolSpec } from "../../runtime/tool.ts";
import { withChildTools } from "./child-tools.ts";
import type { Prepared } from "./prepare.ts";
import { openRunFolder } from "./run-folder.ts";

/** What the caller adds to a run; each surface (command, step, tool) differs only here. */
export interface LaunchHooks {
	/** The caller's stop (Esc, the tool's signal); aborting it stops the run and closes every subagent. */
	signal?: AbortSignal;
	onEvent?: EventSink;
	/** The `subagent` tool for agents that list it, one level deeper. */
	childTools?: (request: SpawnRequest) => ToolSpec[];
	/** Wraps the spawn last, nearest to the turns (a `/step` pause). */
	wrapSpawn?: (spawn: Spawn) => Spawn;
}

/** How a run ended, and where it is kept. */
export interface Launched {
	result: FlowResult;
	/** The run folder as a person would type it. */
	runDir: string;
	/** Set when the caller stopped the run (Esc, the tool's signal), rather than a failure ending it. */
	stopped?: boolean;
}

/** Runs `p`; never throws for a failed run (the failure is in the result). */
export async function launch(p: Prepared, hooks: LaunchHooks = {}): Promise<Launched> {
	const controller = new AbortController();
	let stopped = false;
	const onCallerStop = () => {
		stopped = true;
		// The reason makes every cut turn and the run fail `stopped`, which a resume tells apart from a deadline.
		if (!controller.signal.aborted) controller.abort(stopReason());
	};
	if (hooks.signal?.aborted) onCallerStop();
	hooks.signal?.addEventListener("abort", onCallerStop, { once: true });
	let spawn = withChildTools(p.host.spawn, hooks.childTools);
	if (hooks.wrapSpawn) spawn = hooks.wrapSpawn(spawn);
	const folder = openRunFolder(p.cwd, p.flow.name.value);
	let result: FlowResult | undefined;
	try {
		result = await runFlow(p.flow, p.input, {
			spawn,
			models: p.models,
			cwd: p.cwd,
			signal: controller.signal,
			ask: p.ask,
			git: p.git,
			check: createBashCheck(),
			scripts: p.scripts,
			...p.extras,
			...(p.request.timeoutMs !== undefined ? { timeoutMs: p.request.timeoutMs } : {}),
			...(hooks.onEvent ? { onEvent: hooks.onEvent } : {}),
		});
		return { result, runDir: folder.shown, ...(stopped ? { stopped } : {}) };
	} finally {
		hooks.signal?.removeEventListener("abort", onCallerStop);
		if (result) {
			folder.finish(result, {
				file: p.entry.file,
				source: p.entry.source,
				...(p.request.model ? { model: p.request.model } : {}),
				...(p.request.timeoutMs !== undefined ? { timeoutMs: p.request.timeoutMs } : {}),
				...(p.extras.budget ? { budget: p.extras.budget } : {}),
				...(p.request.script ? { script: p.request.script } : {}),
				...(stopped ? { stopped: "by the person" } : {}),
			});
		}
	}
}
