/**
 * The one contract every turn and every workflow shares, so they compose: a failure is a value with
 * `ok: false`, never an exception, and its usage is filled in because a turn that failed after 12k tokens
 * still cost 12k tokens.
 */
import type { Usage } from "./usage.ts";

/**
 * Why a turn or node failed, decided from signals and stop reasons, never from message text. The closed
 * set a flow's conditions read as `x.error.kind` (an enum, so a misspelt kind is refused before the run).
 */
export const ERROR_KINDS = [
	"provider",
	"timeout",
	"aborted",
	"stopped",
	"cancelled",
	"schema",
	"condition",
	"child",
	"nobody",
	"unavailable",
	"empty-message",
	"unconverged",
	"too-many",
	"budget",
	"idle",
	"blocked",
	"unfinished",
	"refused",
	"model",
	"unscripted",
] as const;

/** One of {@link ERROR_KINDS}. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

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
