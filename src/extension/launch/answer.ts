/**
 * How a finished run reads, for the model and the person alike: whose result it is, what it was asked,
 * the output of the last root node, and one line on how the run ended and where its folder is.
 *
 *   ◆ explore
 *   Result of the explore flow, asked: How are faults reported?
 *
 *   <the answer>
 *
 *   ok · .pi/runs/2026-09-23_20-06-33-explore · ↑12k ↓2.1k · 41.2s
 */
import { reuseLine, reuseSummary } from "../../identity/index.ts";
import { formatUsage } from "../../runtime/index.ts";
import type { Launched } from "./launch.ts";

/** The answer's text and its last line. */
export function answerOf(flow: string, input: string, launched: Launched): { content: string; end: string } {
	const { result, runDir } = launched;
	const output =
		typeof result.output === "string" ? result.output : `\`\`\`json\n${JSON.stringify(result.output, null, 2)}\n\`\`\``;
	// The error names its visit first (`review: budget: …`); the end line already says where.
	const why =
		result.failedAt && result.error?.startsWith(`${result.failedAt}: `)
			? result.error.slice(result.failedAt.length + 2)
			: result.error;
	const summary = reuseSummary(result.visits);
	const reused = summary ? ` · ${reuseLine(summary)}` : "";
	const end = result.ok
		? `ok · ${runDir} · ${formatUsage(result.usage)}${reused}`
		: launched.stopped
			? `stopped by you${result.failedAt ? ` at ${result.failedAt}` : ""} · ${runDir}`
			: result.errorKind === "budget"
				? `stopped at ${result.failedAt ?? "?"}: ${why?.replace(/^budget: /, "") ?? "the budget is spent"} · ${runDir}`
				: `failed at ${result.failedAt ?? "?"}: ${why ?? "unknown error"} · ${runDir}`;
	const unwritten = launched.unwritten?.length
		? `\n(could not write ${launched.unwritten.join("; ")}: the journal keeps the run)`
		: "";
	const asked = input.length > 200 ? `${input.slice(0, 199)}…` : input;
	const body = result.ok || output.trim() ? output : "(no output)";
	return { content: `◆ ${flow}\nResult of the ${flow} flow, asked: ${asked}\n\n${body}\n\n${end}${unwritten}`, end };
}
