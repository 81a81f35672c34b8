/**
 * The shapes of the scripted provider server: what a request looks like once read off the wire (the same
 * for both APIs), what the script answers with (a reply or a fault), and what the server billed.
 */

/** Token counts as a provider reports them. */
export interface Tokens {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

/** One model request as the server read it, whichever API it came in on. */
export interface WireRequest {
	/** 1-based, in arrival order over the server's life. */
	index: number;
	api: "openai" | "anthropic";
	model: string;
	/** The system prompt's text (Anthropic's system blocks joined; OpenAI's system/developer messages). */
	system: string;
	/** The conversation without the system prompt, each message as role and plain text. */
	messages: { role: "user" | "assistant" | "tool"; text: string; tools?: string[] }[];
	/** Names of the tools the request offers. */
	tools: string[];
	/** The text of the last user message (not a tool result): for matching a turn to its task. */
	lastUser: string;
	/** Assistant messages already in the conversation: 0 for a turn's first request. */
	turn: number;
	/** The request body as received, parsed. */
	body: Record<string, unknown>;
	/**
	 * The prompt in the order a provider caches it (tools, system, messages), serialized canonically: two
	 * requests share a cacheable prefix exactly as far as these strings share one.
	 */
	prompt: string;
	/** The part of `prompt` before the conversation: tools and system prompt. */
	head: string;
}

/** A tool call in a reply; `args` may be a string to send malformed JSON on purpose. */
export interface WireToolCall {
	name: string;
	args: unknown;
	id?: string;
}

/** A normal answer. */
export interface Reply {
	text?: string;
	tools?: WireToolCall[];
	/** Overrides the usage the server would compute (its counts of the prompt and the answer). */
	usage?: Partial<Tokens>;
	/** Waits this long before the first byte (on top of the server's `latencyMs`). */
	delayMs?: number;
}

/** The faults a provider is known for. */
export type FaultName = "429" | "529" | "500" | "502" | "503" | "cut" | "stall" | "malformed" | "reset";

/** A failure instead of an answer. */
export interface Fault {
	fault: FaultName;
	/** `retry-after` in seconds (fractions allowed) on 429, 529 and 503. */
	retryAfter?: number;
	/** For `cut`: text characters sent before the connection drops. Default: half the answer. */
	afterChars?: number;
	/** For `cut`, `stall` and `malformed`: the reply whose stream is broken. Default: a short text. */
	reply?: Reply;
}

/** What the script answers a request with. */
export type Answer = Reply | Fault;

/** The script: one answer per request, decided from the request. */
export type Responder = (request: WireRequest) => Answer | Promise<Answer>;

/** How one request ended, and what the server reported as its usage (what a provider bills). */
export interface LedgerEntry {
	index: number;
	api: "openai" | "anthropic";
	model: string;
	/** HTTP status sent (200 for a stream, even one cut later). */
	status: number;
	outcome: "ok" | FaultName | "limited";
	/** The usage the response carried to the client; zero when it carried none. */
	billed: Tokens;
	/** Tool calls the answer made, by name. */
	tools: string[];
}

/** Zero tokens. */
export function noTokens(): Tokens {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/** `true` when an answer is a fault. */
export function isFault(a: Answer): a is Fault {
	return typeof (a as Fault).fault === "string";
}
