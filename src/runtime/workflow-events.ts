/**
 * What a workflow says while it runs, for live views and measurements. It is separate from the flow
 * evaluator's `FlowEvent` because a workflow has no node paths of its own: it names subagents and turns.
 * Display is an observer: a listener that throws is reported and ignored, never allowed to change a run.
 */
import type { FailureKind } from "./failure.ts";
import type { Usage } from "./usage.ts";

/** Everything a {@link SubagentPool} reports, in the order it happens. */
export type WorkflowEvent =
	| {
			type: "spawn";
			agent: string;
			/** The pool key the subagent serves: who shares its memory. */
			key: string;
			/** Its id; absent when spawning failed. */
			subagent?: string;
			model: string;
			/** The subagent this workflow runs under, so a tree of delegations is measured under its root. */
			parent?: string;
			error?: string;
	  }
	| { type: "turn_start"; agent: string; subagent: string; model: string; label: string }
	| {
			type: "turn_end";
			agent: string;
			subagent: string;
			model: string;
			label: string;
			ok: boolean;
			/** Filled in for failed turns too: a turn that failed after 12k tokens cost 12k tokens. */
			usage: Usage;
			error?: string;
			errorKind?: FailureKind;
	  }
	/** A turn refused without spawning, e.g. because the signal had already aborted. */
	| { type: "refused"; agent: string; label: string; error: string; errorKind: FailureKind }
	| { type: "tool_call"; agent: string; subagent: string; tool: string; args: unknown }
	/** A model request lost in transit was sent again; the turn goes on. */
	| {
			type: "provider_retry";
			agent: string;
			subagent: string;
			label: string;
			attempt: number;
			reason: string;
			message: string;
			delayMs: number;
			retryAfterMs?: number;
	  }
	/** A subagent closed; `error` when closing it failed (the others are closed all the same). */
	| { type: "close"; agent: string; subagent: string; error?: string };

/** Wraps a listener so that one that throws cannot break the run it watches. */
export function safeListener(listener: ((event: WorkflowEvent) => void) | undefined): (event: WorkflowEvent) => void {
	if (!listener) return () => {};
	return (event) => {
		try {
			listener(event);
		} catch (error) {
			process.emitWarning(`pi-flows: a workflow event listener threw and was ignored: ${String(error)}`);
		}
	};
}
