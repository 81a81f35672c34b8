/**
 * What a subagent says about each model request and each tool it runs, below the turn: a turn is one
 * `ask`, and inside it pi sends one request per assistant message and runs the tools each answer calls.
 * Observers that draw requests (OpenTelemetry's `chat` spans, `execute_tool` spans) need these facts; the
 * evaluator never decides anything on them.
 *
 *   request start  { provider: "anthropic", model: "claude-sonnet-4", server: "api.anthropic.com:443" }
 *   request end    { …, responseModel: "claude-sonnet-4-20250514", finish: "tool_use", usage: { input: 812, … } }
 *   tool end       { tool: "read", callId: "toolu_01…", ok: true, ms: 3 }
 */

/** Tokens and cost one request reported (pi's counters for that assistant message; 0 when not reported). */
export interface RequestUsage {
	/** Input tokens not read from or written to the provider's cache (pi's `input`). */
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
}

/**
 * What went in and came out of one request, in pi's own message shapes, handed over lazily: only an
 * observer that was asked to capture content (OpenTelemetry's capture switch) calls it, so nothing is
 * copied or kept otherwise. A function on purpose: `JSON.stringify` drops it, so no journal or
 * `events.jsonl` line ever holds a conversation through it.
 */
export type RequestContent = () => { messages: readonly unknown[]; output: readonly unknown[] };

/** A model request as it leaves and as it ends. */
export type ModelRequest =
	| {
			phase: "start";
			/** pi's provider id (`anthropic`, `openai`, `scripted`, a `models.json` name). */
			provider: string;
			/** The model id the request names. */
			model: string;
			/** `host:port` of the provider's endpoint, when the model has a base URL. */
			server?: string;
	  }
	| {
			phase: "end";
			provider: string;
			model: string;
			server?: string;
			/** The model the provider says answered, when it says. */
			responseModel?: string;
			responseId?: string;
			/** The provider's own stop reason when pi kept it (`end_turn`, `tool_calls`), else pi's (`stop`, `toolUse`). */
			finish: string;
			/** The request failed (after any transport retries): pi's error message. */
			error?: string;
			usage: RequestUsage;
			content?: RequestContent;
	  };

/** A tool call of a turn, as it ended. */
export interface ToolEnd {
	tool: string;
	callId: string;
	ok: boolean;
	/** Milliseconds the tool ran, as pi measured it. */
	ms?: number;
	/** The result pi handed back to the model, for observers capturing content (see {@link RequestContent}). */
	content?: () => unknown;
}
