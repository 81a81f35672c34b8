/**
 * Several answers read as one: each under a heading naming its agent and its place, a failed one marked
 * with its error. A fan-out's output and a synthesis's evidence are written this way, so a reader (person
 * or model) can always tell a thin answer from a missing one.
 */
import type { Result } from "../runtime/index.ts";
import { addUsage } from "../runtime/index.ts";

/** `## scout (2/3)` sections, one per result, in order; a failed one reads `## scout (2/3) - failed: <error>`. */
export function labelBranches(results: readonly Result[]): string {
	return results
		.map((r, i) => {
			const head = `## ${r.agent} (${i + 1}/${results.length})`;
			const body = r.output.trim();
			if (r.ok) return `${head}\n\n${body}`;
			return `${head} - failed: ${r.error ?? "unknown error"}${body ? `\n\n${body}` : ""}`;
		})
		.join("\n\n");
}

/** Distinct values joined, so a reading of one agent (or model) says just that one. */
function distinct(values: readonly string[]): string {
	return [...new Set(values.filter(Boolean))].join(", ");
}

/**
 * The reading of branches as one `Result`: output labelled, failed the moment one branch failed, usage
 * summed. The error is `cause`'s when given (the first failure in time, so a `failFast` reads as the
 * branch that broke rather than one it cancelled), else the first failed branch's.
 */
export function readBranches(results: readonly Result[], fallbackAgent: string, cause?: Result): Result {
	const broken = results.find((r) => !r.ok) && (cause ?? results.find((r) => !r.ok));
	return {
		agent: distinct(results.map((r) => r.agent)) || fallbackAgent,
		output: labelBranches(results),
		messages: [],
		usage: addUsage(...results.map((r) => r.usage)),
		model: distinct(results.map((r) => r.model)),
		ok: !broken,
		...(broken
			? { error: broken.error ?? "a branch failed", ...(broken.errorKind ? { errorKind: broken.errorKind } : {}) }
			: {}),
	};
}
