/**
 * The few phrases the plan and the graph both print, kept in one place so the two renderings of a flow
 * never describe the same node in different words.
 */
import type { Bound } from "../check/index.ts";
import { formatDuration } from "../syntax/index.ts";

/** `1 turn`, `3 turns`: counts read better than `3 turn(s)` in a line a person scans. */
export function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * A worst case as the plan prints it: `≤ 3 turns · ≤ 1h30m`, `≤ 2m` for a check, `no turn` for a commit,
 * and `a person's answer` for what waits on someone, because no clock bounds that wait.
 */
export function boundText(b: Bound): string {
	const parts: string[] = [];
	if (b.turns > 0) parts.push(`≤ ${plural(b.turns, "turn")}`);
	if (b.ms > 0) parts.push(`≤ ${formatDuration(b.ms)}`);
	if (b.waits) parts.push(parts.length ? "and a person's answer" : "a person's answer");
	return parts.length ? parts.join(" · ") : "no turn";
}

/** A loop's or map's `max`, `concurrency` and the like, shared by plan rows and subgraph titles. */
export function blockFacts(node: {
	kind: string;
	max?: { value: number };
	concurrency?: { value: number };
	copies?: { value: boolean };
	rounds?: { value: number };
}): string[] {
	const out: string[] = [];
	if (node.max) out.push(`max ${node.max.value}`);
	if (node.concurrency) out.push(`concurrency ${node.concurrency.value}`);
	if (node.rounds) out.push(`rounds ${node.rounds.value}`);
	if (node.copies?.value) out.push("copies");
	return out;
}
