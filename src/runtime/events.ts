/**
 * The typed event stream every reporter and (later) the journal consume. Display is an observer: unplug
 * every listener and a run's result is identical.
 */
import type { Budget } from "./budget.ts";
import type { FailureKind } from "./failure.ts";
import type { RequestContent, RequestUsage } from "./requests.ts";
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
			/** A run with `--reuse`: whether the visit was taken from the earlier run, or why it ran. */
			reuse?: ReuseNote;
			usage: Usage;
			/** Milliseconds the visit was held for a person (a `/step` pause), already left out of `usage.ms`. */
			held?: number;
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
	| { type: "tool_call"; path: string; agent: string; subagent: string; tool: string; args: unknown; callId?: string }
	/** A tool call ended; `content` hands its result to an observer capturing content (never serialised). */
	| {
			type: "tool_end";
			path: string;
			agent: string;
			subagent: string;
			tool: string;
			callId: string;
			ok: boolean;
			ms?: number;
			content?: () => unknown;
	  }
	/** One model request of a turn left (a turn sends one per assistant message; retries stay inside it). */
	| {
			type: "request_start";
			path: string;
			agent: string;
			subagent: string;
			provider: string;
			model: string;
			server?: string;
	  }
	/** That request ended: what answered, why it stopped, what it reported; `content` as for `tool_end`. */
	| {
			type: "request_end";
			path: string;
			agent: string;
			subagent: string;
			provider: string;
			model: string;
			server?: string;
			responseModel?: string;
			responseId?: string;
			finish: string;
			error?: string;
			usage: RequestUsage;
			content?: RequestContent;
	  }
	/** An ask node's question was settled: how (an answer, a default for nobody, a timeout…) and after how long. */
	| { type: "ask_answered"; path: string; answer: string; waitedMs: number }
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

/**
 * What reuse across runs decided for one visit (docs/runs.md, "Reuse"), as the journal's `visit_end` keeps
 * it (`ended.reuse`) and `node_end` carries it. `reused`: nothing was played, the earlier run's end was
 * copied, its usage `saved` (counted as 0 here). `ran`: the visit was played, and `why` says which part of
 * it differs from the earlier run (`changed` names the parts).
 */
export type ReuseNote =
	| {
			outcome: "reused";
			/** The run reused from, as a person names it (a run folder, a database run id). */
			from: string;
			/** The visit there (the same path unless a map's items moved), and the life it ended in. */
			path: string;
			life: number;
			/** What that visit spent; this run counts 0. */
			saved: Usage;
			/** Where its transcript is: the run and visit that played it (the first, through chains of reuse). */
			transcript?: { run: string; path: string; life: number };
			/** A visit that changed the tree: the files its recorded change wrote again. */
			reapplied?: string[];
			/** A visit that changed the tree, met on the tree it left: its files, already as it left them. */
			inTree?: string[];
	  }
	| { outcome: "ran"; from: string; why: string; changed: string[] };

/**
 * Events a run emits only for a recording trace (`RunOptions.requestEvents`): no record keeps them, so a
 * run folder or a database holds the same events traced or not.
 */
export const TRACE_ONLY_EVENTS: ReadonlySet<FlowEvent["type"]> = new Set(["request_start", "request_end", "tool_end"]);

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
