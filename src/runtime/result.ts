/**
 * The one contract every turn and every workflow shares, so they compose: a failure is a value with
 * `ok: false`, never an exception, and its usage is filled in because a turn that failed after 12k tokens
 * still cost 12k tokens.
 */
import type { Usage } from "./usage.ts";

/** Why a turn or node failed, decided from signals and stop reasons, never from message text. */
export type ErrorKind =
	| "provider"
	| "timeout"
	| "aborted"
	| "stopped"
	| "schema"
	| "child"
	| "model"
	| "unscripted";

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
	error?: string;
	errorKind?: ErrorKind;
}
