/**
 * What each kind of run failure means to the person reading a report, and what they can do about it. A
 * `switch` rather than a table column on purpose: it ends in `assertNever`, so a kind added to
 * `FAILURE_KIND_TABLE` does not compile until it is worded here.
 *
 *   kindWords("budget") → "The run's budget was spent. Raise it with --budget, or resume with a higher one."
 */
import { assertNever, type FailureKind } from "../runtime/index.ts";

/** One or two sentences on a failure kind: what happened, and what to do. */
export function kindWords(kind: FailureKind): string {
	switch (kind) {
		case "provider":
			return "The model's provider failed after its retries, or the session could not start. A resume tries again.";
		case "timeout":
			return "A turn or a check ran past its time. Raise the node's timeout, or resume to try again.";
		case "aborted":
			return "The caller called the turn off.";
		case "stopped":
			return "A person stopped the run. A resume picks it up where it stopped.";
		case "cancelled":
			return "A failing sibling cut this work short (fail-fast); the sibling's failure is the one to read.";
		case "schema":
			return "The agent's answer did not fit: no accepted submit or verdict, or a tool it must call was not called.";
		case "condition":
			return "An expression could not be evaluated. The flow decided this; a resume would decide the same.";
		case "child":
			return "A visit inside the block failed; its path and kind come first in the message.";
		case "nobody":
			return "A question had nobody to answer it and no default. Run where somebody can answer, or give it a default.";
		case "unavailable":
			return "A port could not do its work (git, a check script, the journal, or an internal error).";
		case "empty-message":
			return "A commit's message was empty. The flow decided this; a resume would decide the same.";
		case "unconverged":
			return "A loop ran out of iterations before its condition held. The flow decided this.";
		case "too-many":
			return "A list was longer than the node allows. The flow decided this.";
		case "budget":
			return "The run's budget was spent. Raise it with --budget, or resume with a higher one.";
		case "idle":
			return "A turn showed no sign of life for too long. A resume tries again.";
		case "blocked":
			return "The agent finished blocked: something a person must clear first. Its handoff says what.";
		case "unfinished":
			return "The agent was still partial after every continuation allowed. Its handoff says what is left.";
		case "refused":
		case "model":
		case "unscripted":
			return "A reserved kind this version does not fail with.";
		case "unknown":
			return "A kind this version of pi-flows does not know, written by another version.";
		default:
			return assertNever(kind);
	}
}
