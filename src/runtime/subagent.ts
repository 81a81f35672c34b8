/**
 * The port between the evaluator and pi. The evaluator and the combinators only ever see these types, so
 * they run offline against any implementation; `src/pi/` provides the real one.
 */
import type { AgentDef } from "../agents/agent.ts";
import type { Result } from "./result.ts";
import type { ToolSpec } from "./tool.ts";

/** Options of one turn. */
export interface AskOptions {
	/** Cancels the turn; the result is then `ok: false` with kind `aborted`. */
	signal?: AbortSignal;
	/** Per-turn deadline. No default: the library does not decide that a legitimate task took too long. */
	timeoutMs?: number;
	/** Aborts the turn (kind `idle`) when pi reports no event for this long: a hung provider or tool. */
	idleMs?: number;
	/** At a turn end past `threshold` (context tokens / window), `directive` is steered in, once per ask. */
	watermark?: { threshold: number; directive: string };
	/** Names the turn for the scripted model and the events: the visit path, e.g. `deliver#2/code`. */
	label?: string;
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
	/** Text appended to the agent's system prompt (the node's skills). */
	appendPrompt?: string;
	/** Keeps the session in this folder (continuing the one already there), instead of in memory. */
	sessionDir?: string;
	/** Called for every tool call, for live views and the event stream. */
	onToolCall?: (tool: string, args: unknown) => void;
	/** Called with each assistant message's text when it ends, for a pane following the turn. */
	onMessage?: (text: string) => void;
}

/** Creates subagents; injectable so every workflow is testable without a network. */
export type Spawn = (request: SpawnRequest) => Promise<Subagent>;
