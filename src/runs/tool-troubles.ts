/**
 * The tool results of a turn that were errors, with their words: a call pi refused before running it (its
 * arguments did not validate) or a tool that failed as it ran. One reading of pi's messages for both
 * backends: the run folder's report reads them from its transcripts, and the DBOS backend, whose workers
 * keep no transcripts, journals them as `tool_trouble` facts as each turn ends.
 *
 *   troublesIn([{ role: "toolResult", toolName: "find", isError: true, content: [{ type: "text", text: "fd is not available" }] }])
 *     → [{ tool: "find", refused: false, words: "fd is not available" }]
 */
import { redactText } from "../secrets/index.ts";

/** One tool result that was an error, without the visit and life it belongs to. */
export interface TroubleWords {
	tool: string;
	/** pi refused the call before running it (its arguments did not validate), rather than the tool failing. */
	refused: boolean;
	/** Masked, and cut at {@link MAX_TROUBLE_WORDS}: a tool's error may echo a whole file. */
	words: string;
}

/** The most of a trouble's words kept: the report shows 2,000; a database row needs no more. */
export const MAX_TROUBLE_WORDS = 4_000;

interface ToolResultMessage {
	role?: string;
	toolName?: string;
	isError?: boolean;
	content?: { type?: string; text?: string }[];
}

/** Every erroring tool result among a turn's messages (pi's `AgentMessage`s), in order. */
export function troublesIn(messages: readonly unknown[]): TroubleWords[] {
	const out: TroubleWords[] = [];
	for (const raw of messages) {
		const m = raw as ToolResultMessage | undefined;
		if (m?.role !== "toolResult" || !m.isError) continue;
		const words = (Array.isArray(m.content) ? m.content : [])
			.map((c) => (c?.type === "text" ? (c.text ?? "") : ""))
			.join("\n")
			.trim();
		out.push({
			tool: m.toolName ?? "?",
			refused: /^Validation failed for tool/.test(words),
			words: redactText(words).slice(0, MAX_TROUBLE_WORDS),
		});
	}
	return out;
}
