/**
 * The two wire formats: reading a request body into a {@link WireRequest}, and writing an answer as the
 * server-sent events each API streams. Each event is a frame with the usage it reports, so the server can
 * bill exactly what reached the client when a stream is cut.
 */
import type { Tokens, WireRequest } from "./types.ts";

/** One SSE frame and what it tells the client. */
export interface Frame {
	data: string;
	/** Usage fields this frame reports (the last report of a field wins, as clients read it). */
	bills?: Partial<Tokens>;
	/** Answer text sent up to and including this frame. */
	textSoFar: number;
}

/** What a stream carries. */
export interface StreamPlan {
	id: string;
	model: string;
	text: string;
	tools: { id: string; name: string; args: string }[];
	usage: Tokens;
}

type Json = Record<string, unknown>;

/** Estimated tokens of a text: one per 4 bytes, as the server counts (and bills) them. */
export function tokensOf(text: string): number {
	return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

const textOf = (content: unknown): string => {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((c: Json) =>
			typeof c?.text === "string"
				? c.text
				: typeof c?.content === "string" || Array.isArray(c?.content)
					? textOf(c.content)
					: "",
		)
		.join("");
};

/** Canonical JSON (sorted keys), so a prompt's bytes do not depend on key order. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
	if (value && typeof value === "object") {
		const o = value as Json;
		return `{${Object.keys(o)
			.filter((k) => k !== "cache_control")
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
			.join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}

/** Reads an OpenAI chat-completions body. */
export function readOpenAI(body: Json, index: number): WireRequest {
	const raw = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
	const system = raw
		.filter((m) => m.role === "system" || m.role === "developer")
		.map((m) => textOf(m.content))
		.join("\n\n");
	const convo = raw.filter((m) => m.role !== "system" && m.role !== "developer");
	const messages = convo.map((m) => {
		const role = m.role === "assistant" ? "assistant" : m.role === "tool" ? "tool" : "user";
		const calls = Array.isArray(m.tool_calls)
			? (m.tool_calls as Json[]).map((c) => String((c.function as Json)?.name ?? ""))
			: undefined;
		return {
			role,
			text: textOf(m.content),
			...(calls?.length ? { tools: calls } : {}),
		} as WireRequest["messages"][number];
	});
	const tools = Array.isArray(body.tools)
		? (body.tools as Json[]).map((t) => String((t.function as Json)?.name ?? t.name ?? ""))
		: [];
	const head = canonical({
		tools: body.tools ?? [],
		system: raw.filter((m) => m.role === "system" || m.role === "developer"),
	});
	return finish(index, "openai", body, system, messages, tools, head, canonical(convo));
}

/** Reads an Anthropic messages body. */
export function readAnthropic(body: Json, index: number): WireRequest {
	const system = typeof body.system === "string" ? body.system : textOf(body.system);
	const raw = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
	const messages = raw.map((m) => {
		const blocks = Array.isArray(m.content) ? (m.content as Json[]) : [];
		const isTool = m.role === "user" && blocks.length > 0 && blocks.every((b) => b.type === "tool_result");
		const calls = blocks.filter((b) => b.type === "tool_use").map((b) => String(b.name));
		const role = m.role === "assistant" ? "assistant" : isTool ? "tool" : "user";
		return {
			role,
			text: textOf(m.content),
			...(calls.length ? { tools: calls } : {}),
		} as WireRequest["messages"][number];
	});
	const tools = Array.isArray(body.tools) ? (body.tools as Json[]).map((t) => String(t.name ?? "")) : [];
	const head = canonical({ tools: body.tools ?? [], system: body.system ?? "" });
	return finish(index, "anthropic", body, system, messages, tools, head, canonical(raw));
}

function finish(
	index: number,
	api: WireRequest["api"],
	body: Json,
	system: string,
	messages: WireRequest["messages"],
	tools: string[],
	head: string,
	convo: string,
): WireRequest {
	const lastUser = [...messages].reverse().find((m) => m.role === "user")?.text ?? "";
	const turn = messages.filter((m) => m.role === "assistant").length;
	return {
		index,
		api,
		model: String(body.model ?? ""),
		system,
		messages,
		tools,
		lastUser,
		turn,
		body,
		head,
		prompt: head + convo,
	};
}

/** The frames of an OpenAI chat-completions stream. */
export function openAIFrames(plan: StreamPlan): Frame[] {
	const chunk = (delta: Json, finish: string | null = null) =>
		JSON.stringify({
			id: plan.id,
			object: "chat.completion.chunk",
			created: 0,
			model: plan.model,
			choices: [{ index: 0, delta, finish_reason: finish }],
		});
	const frames: Frame[] = [{ data: chunk({ role: "assistant", content: "" }), textSoFar: 0 }];
	let sent = 0;
	for (const piece of pieces(plan.text)) {
		sent += piece.length;
		frames.push({ data: chunk({ content: piece }), textSoFar: sent });
	}
	plan.tools.forEach((t, i) => {
		frames.push({
			data: chunk({
				tool_calls: [{ index: i, id: t.id, type: "function", function: { name: t.name, arguments: "" } }],
			}),
			textSoFar: sent,
		});
		for (const piece of pieces(t.args))
			frames.push({ data: chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }), textSoFar: sent });
	});
	frames.push({ data: chunk({}, plan.tools.length ? "tool_calls" : "stop"), textSoFar: sent });
	const u = plan.usage;
	const promptTokens = u.input + u.cacheRead + u.cacheWrite;
	frames.push({
		data: JSON.stringify({
			id: plan.id,
			object: "chat.completion.chunk",
			created: 0,
			model: plan.model,
			choices: [],
			usage: {
				prompt_tokens: promptTokens,
				completion_tokens: u.output,
				total_tokens: promptTokens + u.output,
				prompt_tokens_details: {
					cached_tokens: u.cacheRead,
					...(u.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}),
				},
			},
		}),
		bills: { ...u },
		textSoFar: sent,
	});
	frames.push({ data: "[DONE]", textSoFar: sent });
	return frames;
}

/** The frames of an Anthropic messages stream (`event:` lines included in `data`'s frame text). */
export function anthropicFrames(plan: StreamPlan): Frame[] {
	const ev = (type: string, payload: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}`;
	const u = plan.usage;
	const frames: Frame[] = [
		{
			data: ev("message_start", {
				message: {
					id: plan.id,
					type: "message",
					role: "assistant",
					model: plan.model,
					content: [],
					stop_reason: null,
					stop_sequence: null,
					usage: {
						input_tokens: u.input,
						output_tokens: 0,
						cache_read_input_tokens: u.cacheRead,
						cache_creation_input_tokens: u.cacheWrite,
					},
				},
			}),
			bills: { input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, output: 0 },
			textSoFar: 0,
		},
	];
	let index = 0;
	let sent = 0;
	if (plan.text) {
		frames.push({
			data: ev("content_block_start", { index, content_block: { type: "text", text: "" } }),
			textSoFar: 0,
		});
		for (const piece of pieces(plan.text)) {
			sent += piece.length;
			frames.push({
				data: ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
				textSoFar: sent,
			});
		}
		frames.push({ data: ev("content_block_stop", { index }), textSoFar: sent });
		index++;
	}
	for (const t of plan.tools) {
		frames.push({
			data: ev("content_block_start", {
				index,
				content_block: { type: "tool_use", id: t.id, name: t.name, input: {} },
			}),
			textSoFar: sent,
		});
		for (const piece of pieces(t.args))
			frames.push({
				data: ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }),
				textSoFar: sent,
			});
		frames.push({ data: ev("content_block_stop", { index }), textSoFar: sent });
		index++;
	}
	frames.push({
		data: ev("message_delta", {
			delta: { stop_reason: plan.tools.length ? "tool_use" : "end_turn", stop_sequence: null },
			usage: { output_tokens: u.output },
		}),
		bills: { output: u.output },
		textSoFar: sent,
	});
	frames.push({ data: ev("message_stop", {}), textSoFar: sent });
	return frames;
}

/** The body of an HTTP error in each API's shape. */
export function errorBody(api: WireRequest["api"], status: number): string {
	const [type, message] =
		status === 429
			? ["rate_limit_error", "Rate limited: too many requests"]
			: status === 529
				? ["overloaded_error", "Overloaded"]
				: status === 503
					? ["api_error", "Service temporarily unavailable"]
					: ["api_error", "Internal server error"];
	return api === "anthropic"
		? JSON.stringify({ type: "error", error: { type, message } })
		: JSON.stringify({ error: { type, message, code: String(status) } });
}

/** Text in chunks of 16 characters, so a stream has several deltas to cut between. */
function pieces(text: string): string[] {
	const out: string[] = [];
	for (let i = 0; i < text.length; i += 16) out.push(text.slice(i, i + 16));
	return out;
}
