/**
 * The typed event stream every reporter and (later) the journal consume. Display is an observer: unplug
 * every listener and a run's result is identical.
 */
import type { Usage } from "./usage.ts";

/** Everything a run says while it runs. */
export type FlowEvent =
	| { type: "run_start"; flow: string; input: string; at: number }
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
			error?: string;
			/** The visit's output value, for journals and reports. */
			output?: unknown;
			/** True when the visit ended in an earlier life and was taken from the journal. */
			replayed?: boolean;
			/** The handoff document the visit's agent wrote, as a value. */
			handoff?: unknown;
			usage: Usage;
	  }
	| {
			type: "turn_start";
			path: string;
			agent: string;
			model: string;
			subagent: string;
			/** The visit asked for a pane following it (`pane:` on the node or the agent), with its colour. */
			pane?: { color?: string };
	  }
	/** An assistant message's text, sent only for a visit with a pane (the pane shows it; journals skip nothing). */
	| { type: "message"; path: string; agent: string; subagent: string; text: string }
	| { type: "turn_end"; path: string; agent: string; model: string; subagent: string; ok: boolean; usage: Usage }
	| { type: "tool_call"; path: string; agent: string; subagent: string; tool: string; args: unknown }
	| { type: "chain"; event: ChainEventName; step?: string; index?: number; summary?: unknown; error?: string }
	| { type: "budget_warning"; spent: string }
	| { type: "budget_exhausted"; reason: string };

/** The chain's own events, on the same stream (and in `events.jsonl`). */
export type ChainEventName = "chain.started" | "chain.step_completed" | "chain.step_failed" | "chain.completed" | "chain.failed";

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
