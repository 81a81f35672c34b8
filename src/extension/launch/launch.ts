/**
 * Runs a prepared flow in its run folder: the spawn wrapped for delegation (agents that list `subagent`)
 * and for the caller (a `/step` pause), the flow's budget and chain settings applied, the run's own stop
 * linked to the caller's, and `result.json` written whatever happened. `/run`, `/step` and the `subagent` tool all start runs
 * here, so they refuse, run and record alike.
 */
import { createBashCheck, type FlowResult } from "../../engine/index.ts";
import { stopReason } from "../../runtime/index.ts";
import { type EventSink, fanOutEvents } from "../../runtime/index.ts";
import { paneWatcher } from "../../panes/index.ts";
import type { Spawn, SpawnRequest } from "../../runtime/index.ts";
import type { ToolSpec } from "../../runtime/index.ts";
import { withChildTools } from "../tool/index.ts";
import type { Prepared } from "./prepare.ts";
import { relative } from "node:path";
import { runsHome, startRun } from "../../runs/index.ts";
import { agentDir } from "../../agents/index.ts";
import { resolveHandoffPolicy } from "../../handoff/index.ts";
import { flushTelemetry, startTelemetry } from "../../telemetry/export/index.ts";

/** What the caller adds to a run; each surface (command, step, tool) differs only here. */
export interface LaunchHooks {
	/** The caller's stop (Esc, the tool's signal); aborting it stops the run and closes every subagent. */
	signal?: AbortSignal;
	onEvent?: EventSink;
	/** The `subagent` tool for agents that list it, one level deeper. */
	childTools?: (request: SpawnRequest) => ToolSpec[];
	/** Wraps the spawn last, nearest to the turns (a `/step` pause). */
	wrapSpawn?: (spawn: Spawn) => Spawn;
	/** Where a visit asking for a pane is told none opens (pi's notify); default: nowhere. */
	note?: (text: string) => void;
}

/** How a run ended, and where it is kept. */
export interface Launched {
	result: FlowResult;
	/** The run folder as a person would type it. */
	runDir: string;
	/** Set when the caller stopped the run (Esc, the tool's signal), rather than a failure ending it. */
	stopped?: boolean;
	/** End-of-run files that could not be written (see `RunOutcome.unwritten`). */
	unwritten?: string[];
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
	// `pane: true` visits open a pane following them in tmux or herdr (pi itself may run inside either).
	const panes = paneWatcher({ ...(hooks.note ? { note: hooks.note } : {}) });
	const onEvent = fanOutEvents(hooks.onEvent, panes.onEvent);
	let spawn = withChildTools(p.host.spawn, hooks.childTools);
	if (hooks.wrapSpawn) spawn = hooks.wrapSpawn(spawn);
	// Traces go out when the environment asks (OTEL_EXPORTER_OTLP_*), the SDK loaded only then.
	await startTelemetry(process.env, (line) => hooks.note?.(`pi-flows: ${line}`));
	try {
		// The journaled runner: a snapshot, a lock, a journal flushed at each visit's end, events, usage and
		// the result, so a run started in pi is resumable by `/run resume` and `pi-flows resume` alike.
		// The same switch and cap as the interactive session: enable_handoff / HANDOFF_* reach every flow turn.
		const places = { cwd: p.cwd, agentDir: agentDir(), env: process.env, projectTrusted: p.projectTrusted };
		const handoff = (await resolveHandoffPolicy(places)).policy;
		const outcome = await startRun(p.flow, p.input, {
			runsHome: runsHome(p.cwd),
			handoff,
			spawn,
			cwd: p.cwd,
			signal: controller.signal,
			ask: p.ask,
			git: p.git,
			check: createBashCheck(),
			somebodyThere: p.ask.somebodyThere,
			...p.runOptions,
			...(p.reuse ? { reuse: p.reuse } : {}),
			toolSchemas: p.host.toolSchemas,
			...(p.request.timeoutMs !== undefined ? { timeoutMs: p.request.timeoutMs } : {}),
			onEvent,
		});
		if ("refused" in outcome) throw new Error(outcome.refused);
		return {
			result: outcome.result,
			runDir: shown(p.cwd, outcome.runDir),
			...(stopped ? { stopped } : {}),
			...(outcome.unwritten ? { unwritten: outcome.unwritten } : {}),
		};
	} finally {
		hooks.signal?.removeEventListener("abort", onCallerStop);
		await panes.close();
		// pi lives on after the run: what it traced is exported now, not at pi's exit.
		await flushTelemetry();
	}
}

/** A run folder as a person in the working folder would type it. */
export function shown(cwd: string, dir: string): string {
	const rel = relative(cwd, dir);
	return rel && !rel.startsWith("..") ? rel : dir;
}
