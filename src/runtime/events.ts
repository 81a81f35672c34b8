/**
 * The typed event stream every reporter and (later) the journal consume. Display is an observer: unplug
 * every listener and a run's result is identical.
 */
import type { Budget } from "./budget.ts";
import type { FailureKind } from "./failure.ts";
import type { Usage } from "./usage.ts";

/** Everything a run says while it runs. */
export type FlowEvent =
	| { type: "run_start"; flow: string; input: string; at: number; budget?: Budget }
	| { type: "run_end"; flow: string; ok: boolean; usage: Usage; error?: string }
	| { type: "node_start"; path: string; node: string; kind: string; agent?: string; model?: string }
	| {
			type: "node_end";
			path: string;
			node: string;
			kind: string;
			agent?: string;
			model?: string;
			ok: boolean;
			/** `kind: message` of a failed visit. */
			error?: string;
			/** The failed visit's kind, so nobody reads it back out of `error`'s words. */
			errorKind?: FailureKind;
			/** The visit's output value, for journals and reports. */
			output?: unknown;
			/** True when the visit ended in an earlier life and was taken from the journal. */
			replayed?: boolean;
			/** The handoff document the visit's agent wrote, as a value. */
			handoff?: unknown;
			usage: Usage;
	  }
	/** A turn asked for, not yet started: it waits for a shared session, a `/step` pause or a slot. */
	| { type: "turn_wait"; path: string; agent: string; subagent: string }
	| {
			type: "turn_start";
			path: string;
			agent: string;
			model: string;
			subagent: string;
			/** The visit asked for a pane following it (`pane:` on the node or the agent), with its colour. */
			pane?: { color?: string };
	  }
	/** An assistant message's text, as each message ends (a pane and a watcher's page show it; the transcript keeps it). */
	| {
			type: "message";
			path: string;
			agent: string;
			subagent: string;
			text: string;
			/** The message so far, while it streams; the message's end comes without it. */
			draft?: boolean;
	  }
	/** A turn that waited and was refused as it would have started (the budget ran out meanwhile). */
	| { type: "turn_refused"; path: string; agent: string; subagent: string; reason: string }
	| { type: "turn_end"; path: string; agent: string; model: string; subagent: string; ok: boolean; usage: Usage }
	| { type: "tool_call"; path: string; agent: string; subagent: string; tool: string; args: unknown }
	/** A model request lost in transit (429, 529, 5xx, a cut or stalled stream) is sent again; the turn goes on. */
	| {
			type: "provider_retry";
			path: string;
			agent: string;
			subagent: string;
			model: string;
			attempt: number;
			reason: string;
			message: string;
			delayMs: number;
			retryAfterMs?: number;
	  }
	| { type: "chain"; event: ChainEventName; step?: string; index?: number; summary?: unknown; error?: string }
	| { type: "budget_warning"; spent: string }
	| { type: "budget_exhausted"; reason: string }
	/** A cost budget met a model with no price; its turns count $0. Once per model. */
	| { type: "budget_unpriced"; model: string; reason: string }
	/** What counted against the budget so far (earlier lives included), after each turn that ended. */
	| { type: "budget_spend"; tokens: number; cost: number; turns: number };

/** The chain's own events, on the same stream (and in `events.jsonl`). */
export type ChainEventName =
	| "chain.started"
	| "chain.step_completed"
	| "chain.step_failed"
	| "chain.completed"
	| "chain.failed";

/** A listener; it must not throw (a throwing listener is reported and detached, not allowed to break a run). */
export type EventSink = (event: FlowEvent) => void;

/** Fans one event out to several sinks, isolating each so a broken reporter cannot change a run. */
export function fanOutEvents(...sinks: (EventSink | undefined)[]): EventSink {
	const live = sinks.filter((s): s is EventSink => typeof s === "function");
	return (event) => {
		for (const sink of live) {
			try {
				sink(event);
			} catch (error) {
				process.emitWarning(`pi-flows: an event listener threw and was ignored: ${String(error)}`);
			}
		}
	};
}
