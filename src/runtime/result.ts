/**
 * The one contract every turn and every workflow shares, so they compose: a failure is a value with
 * `ok: false`, never an exception, and its usage is filled in because a turn that failed after 12k tokens
 * still cost 12k tokens.
 */
import type { Failure, FailureKind } from "./failure.ts";
import type { Usage } from "./usage.ts";

/** A failure's kind, as results name it: {@link FailureKind} under its first name, kept for the library's users. */
export type ErrorKind = FailureKind;

/** What one agent turn gave back. */
export interface Result {
	/** The agent's name. */
	agent: string;
	/** The last assistant text: what feeds the next step. */
	output: string;
	/** The turn's messages (pi's `AgentMessage`s), for transcripts and tests. */
	messages: readonly unknown[];
	/** This turn only. */
	usage: Usage;
	/** The model the turn ran on, `provider/id`. */
	model: string;
	ok: boolean;
	/** A failed turn's {@link Failure}, spelled flat (`message` as `error`, `kind` as `errorKind`): see {@link failureOf}. */
	error?: string;
	errorKind?: FailureKind;
	/**
	 * Milliseconds a wrapper around the turn held it for a person (a `/step` pause: the editor before it,
	 * the choice after it). Not the turn's time: its visit leaves it out of its own. Absent: not held.
	 */
	heldMs?: number;
}

/** The flat failure fields a result or a run's end carries. */
export interface FlatFailure {
	error?: string;
	errorKind?: FailureKind;
}

/**
 * A failed result's {@link Failure}: the result keeps its two flat fields (the shape library users and
 * `result.json` files already hold), and this is the one way to read them as the run's failure type.
 */
export function failureOf(r: FlatFailure & { ok: boolean }): Failure | undefined {
	if (r.ok) return undefined;
	return { kind: r.errorKind ?? "provider", message: r.error ?? "failed" };
}

/** A {@link Failure} as a result's flat fields. */
export function flatFailure(f: Failure): { error: string; errorKind: FailureKind } {
	return { error: f.message, errorKind: f.kind };
}
