/**
 * The port between the evaluator and pi. The evaluator and the combinators only ever see these types, so
 * they run offline against any implementation; `src/pi/` provides the real one.
 */
import type { AgentDef } from "../agents/index.ts";
import type { TurnBudget } from "./budget.ts";
import type { ModelRequest, ToolEnd } from "./requests.ts";
import type { Result } from "./result.ts";
import type { ToolSpec } from "./tool.ts";
import type { TransportPolicy, TransportRetry } from "./transport.ts";

/** Options of one turn. */
export interface AskOptions {
	/** Cancels the turn; the result is then `ok: false` with kind `aborted`. */
	signal?: AbortSignal;
	/** Per-turn deadline. No default: the library does not decide that a legitimate task took too long. */
	timeoutMs?: number;
	/** Aborts the turn (kind `idle`) when pi reports no event for this long: a hung provider or tool. */
	idleMs?: number;
	/**
	 * At a turn end past `threshold` (context tokens / window), the tools named in `offer` (the spawn's
	 * `laterTools`) are declared to the model and `directive` is steered in, once per ask; never once `muted()`
	 * says the turn has handed off: a steer after `finish` would buy a paid request after the work is
	 * recorded. Offered tools stay declared for the rest of the session.
	 */
	watermark?: { threshold: number; directive: string; muted?: () => boolean; offer?: readonly string[] };
	/** Names the turn for the scripted model and the events: the visit path, e.g. `deliver#2/code`. */
	label?: string;
	/**
	 * Called as the turn really starts, after any wait a wrapper imposed (a `/step` pause, a shared
	 * session's queue); a reason returned refuses the turn as kind `budget` with nothing spent. Wrappers
	 * pass it on; the port calls it once, before the first request.
	 */
	onStart?: () => string | undefined;
	/** Told of every request sent again after a transport fault (the turn itself goes on). */
	onRetry?: (retry: TransportRetry) => void;
	/**
	 * How the turn answers when the session holds answer tools it should not use this time: `text` for an
	 * untyped node sharing a `memory:` subagent with a typed one. Default: whatever its tools say.
	 */
	answer?: "text";
}

/** A live subagent: one pi session with its agent's prompt and tools. */
export interface Subagent {
	/** Unique within the process, e.g. `scout#3`. */
	readonly id: string;
	readonly agent: string;
	/** `provider/id` of the model it runs on. */
	readonly model: string;
	/** One question, one answer. Never throws for a failed turn: the failure is in the result. */
	ask(task: string, options?: AskOptions): Promise<Result>;
	/** Tells a turn in progress something it must read before its next request (pi's steer). */
	steer?(text: string): Promise<void>;
	/** Disposes the session. Idempotent. */
	close(): Promise<void>;
}

/** What the evaluator asks of a spawn. */
export interface SpawnRequest {
	agent: AgentDef;
	/** A model reference as resolved before the run (`provider/id`); undefined means pi's settings. */
	model?: string;
	thinking?: string;
	cwd: string;
	/** The tool allowlist; default: the agent's `tools:`. A node can only narrow it. */
	tools?: string[];
	/** Tools of the evaluator's (`submit`, `verdict`, ...), added to the allowlist. */
	customTools?: ToolSpec[];
	/**
	 * Tools offered only once a turn's watermark names them (`AskOptions.watermark.offer`): the handoff tools,
	 * wanted by few turns. Made when first offered, so a turn that never fills its context never makes them,
	 * and until then neither declared to the model nor, in a pi session that starts afresh, registered.
	 */
	laterTools?: () => ToolSpec[];
	/** Text appended to the agent's system prompt (the node's skills). */
	appendPrompt?: string;
	/** Keeps the session in this folder (continuing the one already there), instead of in memory. */
	sessionDir?: string;
	/** Transport retries of this subagent's requests, over the host's policy (a flow's `transport:`). */
	transport?: Partial<TransportPolicy>;
	/** Called for every tool call, for live views and the event stream; `callId` is the model's id for the call. */
	onToolCall?: (tool: string, args: unknown, callId?: string) => void;
	/** Called as each tool call ends (the trace's `execute_tool` spans). */
	onToolEnd?: (end: ToolEnd) => void;
	/** Called as each model request leaves and ends (the trace's `chat` spans); retries stay inside one request. */
	onRequest?: (request: ModelRequest) => void;
	/**
	 * Folders no `write` or `edit` of the turn may touch: the run's own folder (its snapshot and journal
	 * decide what a resume runs) and the project's `.pi/flows` and `.pi/agents`. Set by the run, never by
	 * a flow. `bash` is not held by this (a prompt is not a permission boundary; neither is a path check).
	 */
	protectedPaths?: readonly string[];
	/** The run's budget, for the subagent's own `subagent` tool: its children's turns count against it too. */
	budget?: TurnBudget;
	/** Called with each assistant message's text when it ends, for a pane following the turn. */
	onMessage?: (text: string) => void;
	/** Called with a message's text so far while it streams (at most twice a second), for a watcher's page. */
	onDraft?: (text: string) => void;
}

/** Creates subagents; injectable so every workflow is testable without a network. */
export type Spawn = (request: SpawnRequest) => Promise<Subagent>;
