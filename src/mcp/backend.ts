/**
 * Where the runs the MCP server starts go, as `pi-flows run --backend` chooses: the run folder of this
 * machine (the default: the run lives in the server's process) or the DBOS backend (the run lives in a
 * Postgres database its workers share; the server puts it there and follows it). The tools speak to one
 * backend through this port, so starting, resuming, reading, listing and stopping a run are worded once.
 *
 *   backend.launch(flow, input, { attended: true })  →  { ok: true, run }   (followed from here)
 *   backend.read("2026-…-build")                       →  { ok: true, report }   (a run not followed here)
 */
import type { Fault } from "../faults/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import type { LaunchStage } from "../launch/index.ts";
import type { InDoubt } from "../runs/index.ts";
import type { Backend, LiveRun } from "./live-run.ts";
import type { RunReport } from "./results.ts";

/** A launch the preparation refused: its faults and lines, as the CLI would print them. */
export interface LaunchRefusal {
	ok: false;
	stage: LaunchStage | "input" | "run";
	faults: Fault[];
	lines: string[];
}

/** A run followed from here, or why it could not start. */
export type Started = { ok: true; run: LiveRun } | LaunchRefusal;

/** A run's report, or why there is none (a sentence for the host's model). */
export type Read = { ok: true; report: RunReport } | { ok: false; error: string };

/** What a call that starts a life brings: whether it answers forms, and the caller's trace context. */
export interface LaunchCall {
	attended: boolean;
	/** W3C `traceparent`, already checked well formed; the life's root span becomes its child. */
	traceparent?: string;
}

/** The runs of one backend. */
export interface RunBackend {
	name: Backend;
	/**
	 * Starts a checked flow; `attended`: the starting client answers forms; `traceparent`: the call's
	 * `_meta.traceparent`, which the run's trace continues.
	 */
	launch(flow: CheckedFlow, input: Value, options: LaunchCall): Promise<Started>;
	/** Starts the next life of a run that is not under way, as `pi-flows resume` does. */
	resume(handle: string, options: LaunchCall & { inDoubt?: InDoubt }): Promise<Started>;
	/** A run this server does not follow: how it stands, from its folder or the database. */
	read(handle: string): Promise<Read>;
	/** The handles of the backend's runs, newest first. */
	list(limit: number): Promise<string[]>;
	/** Stops a run this server does not follow, where the backend can (the database reaches every worker). */
	stopElsewhere(handle: string): Promise<Read>;
	/** Releases what the backend holds open (the database's connections). */
	close(): Promise<void>;
}

/** Whether a handle names a run without naming a path: nothing outside the runs' home is read through it. */
export function isHandle(handle: string): boolean {
	return /^[\w.-]+$/.test(handle) && handle !== "." && handle !== "..";
}
