/**
 * The words of the last answer tool (`submit`, `verdict`) that refused its arguments in a turn. A turn that
 * fails after such a refusal (the model gave up, the script ran out of steps, the turn timed out) failed
 * because of it, and the person reads the cause where they look (the CLI line, the live view, the answer,
 * the report) instead of in a transcript.
 *
 *   Validation failed for tool "verdict":\n  - resolved.0.how: expected one of ["addressed","withdrawn"]
 *   → the `verdict` tool refused its arguments: resolved.0.how: expected one of ["addressed","withdrawn"]
 */

const ANSWER_TOOLS = new Set(["submit", "verdict"]);

/** One sentence naming the tool and its own words, or undefined when no answer tool refused last. */
export function lastRefusal(messages: readonly unknown[]): string | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i] as { role?: string; toolName?: string; isError?: boolean; content?: unknown };
		if (m?.role !== "toolResult") continue;
		// Only the last tool result counts: an accepted call, or any tool that ran after the refusal, means
		// the turn went on past it, and the refusal is not why it ended.
		if (!m.toolName || !ANSWER_TOOLS.has(m.toolName) || !m.isError) return undefined;
		return `the \`${m.toolName}\` tool refused its arguments: ${words(textOf(m.content))}`;
	}
	return undefined;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((c) =>
			c && typeof c === "object" && (c as { type?: string }).type === "text"
				? String((c as { text?: unknown }).text ?? "")
				: "",
		)
		.join("");
}

/**
 * pi's validation text is a header, `  - path: problem` lines and the arguments echoed back; our own tools
 * answer `Refused: …. Call submit again …`. Only the problems are the tool's words worth repeating.
 */
function words(text: string): string {
	const body = text.split(/\n\s*\nReceived arguments:/)[0];
	const problems = body
		.split("\n")
		.filter((l) => /^\s*-\s/.test(l))
		.map((l) => l.replace(/^\s*-\s*/, "").trim());
	if (problems.length) return problems.join("; ");
	const refused = /^Refused:\s*(.*?)(?:\s+Call submit again\b.*)?$/s.exec(body.trim());
	return (refused ? refused[1] : body).trim().replace(/\s+/g, " ");
}
