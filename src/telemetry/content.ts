/**
 * Message content on spans, only when asked: the conventions make `gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions` and tool arguments and results Opt-In, and the
 * switch instrumentations read is `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`. Every value goes
 * through the one redaction door (`src/secrets`) before it reaches an attribute, and is written as a JSON
 * string (the JS API has no structured attribute values yet; the conventions allow a JSON string on spans).
 *
 *   pi  { role: "user", content: "Look at item-1" }
 *   →   { role: "user", parts: [{ type: "text", content: "Look at item-1" }] }
 */
import { redactJson, redactText } from "../secrets/index.ts";

/** The capture switch's values that turn span content on (case does not matter). */
const ON = new Set(["true", "1", "span_only", "span_and_event"]);

/** Whether the environment asks for message content on spans. */
export function captureWanted(env: Readonly<Record<string, string | undefined>>): boolean {
	return ON.has((env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? "").trim().toLowerCase());
}

type Part = Record<string, unknown>;
interface Msg {
	role: string;
	parts: Part[];
	finish_reason?: string;
}

const asRecord = (v: unknown): Record<string, unknown> =>
	v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {};

/** pi's content blocks as the conventions' parts. */
function partsOf(content: unknown): Part[] {
	if (typeof content === "string") return [{ type: "text", content }];
	if (!Array.isArray(content)) return [];
	return content.map((block): Part => {
		const b = asRecord(block);
		if (b.type === "text") return { type: "text", content: String(b.text ?? "") };
		if (b.type === "thinking") return { type: "reasoning", content: String(b.thinking ?? "") };
		if (b.type === "toolCall") return { type: "tool_call", id: b.id, name: b.name, arguments: b.arguments };
		return { type: String(b.type ?? "unknown") };
	});
}

/** The conventions' input messages and system instructions from pi's transcript of one request. */
export function inputOf(messages: readonly unknown[]): { input: Msg[]; system: Part[] } {
	const input: Msg[] = [];
	const system: Part[] = [];
	for (const m of messages) {
		const r = asRecord(m);
		if (r.role === "system") {
			// pi keeps most of a system prompt in named sections, rendered after the content.
			system.push(...partsOf(r.content).filter((x) => x.content !== ""));
			for (const text of Object.values(asRecord(r.sections)))
				if (typeof text === "string" && text) system.push({ type: "text", content: text });
		} else if (r.role === "toolResult")
			input.push({
				role: "tool",
				parts: [{ type: "tool_call_response", id: r.toolCallId, result: textOf(r.content) }],
			});
		else input.push({ role: String(r.role ?? "user"), parts: partsOf(r.content) });
	}
	return { input, system };
}

/** The answer as the conventions' one output message. */
export function outputOf(content: readonly unknown[], finish: string): Msg[] {
	return [{ role: "assistant", parts: partsOf(content), finish_reason: finish }];
}

/** A tool's result as text (pi's results are content blocks). */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	const blocks = Array.isArray(content) ? content : asRecord(content).content;
	if (!Array.isArray(blocks)) return JSON.stringify(content ?? null);
	return blocks.map((b) => (asRecord(b).type === "text" ? String(asRecord(b).text ?? "") : "")).join("");
}

/** A value as the redacted JSON string an attribute holds. */
export function redactedJson(value: unknown): string {
	return redactText(JSON.stringify(redactJson(value)) ?? "null");
}
