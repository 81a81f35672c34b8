/**
 * Failures `on-fail: continue` absorbed: the run went on past them, and says so. A failed leaf visit
 * (an agent turn, a swarm, a check, a question, a commit) that is not where the run's own failure started
 * and not a stop (a run stop, a fail-fast cut, a spent budget, a blocker) was absorbed by a node above it.
 */
import type { VisitOutcome } from "./run.ts";

/** How many visits were absorbed, by kind, and which. */
export interface Absorbed {
	count: number;
	/** `{ provider: 2, schema: 1 }`. */
	byKind: Record<string, number>;
	visits: { path: string; kind: string; message: string }[];
}

const LEAVES = new Set(["agent", "swarm", "check", "ask", "commit"]);
const STOPS = new Set(["stopped", "cancelled", "budget", "blocked"]);

/** The absorbed failures among a run's visits; undefined when there are none. */
export function absorbedOf(visits: readonly VisitOutcome[], failedAt?: string): Absorbed | undefined {
	const out: Absorbed = { count: 0, byKind: {}, visits: [] };
	for (const v of visits) {
		if (v.ok || !LEAVES.has(v.kind) || v.path === failedAt) continue;
		const text = v.error ?? "failed";
		const colon = text.indexOf(": ");
		const kind = colon > 0 ? text.slice(0, colon) : "failed";
		if (STOPS.has(kind)) continue;
		out.count++;
		out.byKind[kind] = (out.byKind[kind] ?? 0) + 1;
		out.visits.push({ path: v.path, kind, message: colon > 0 ? text.slice(colon + 2) : text });
	}
	return out.count ? out : undefined;
}

/** `3 visits absorbed by on-fail: continue (provider 2, schema 1)`. */
export function formatAbsorbed(a: Absorbed): string {
	const kinds = Object.entries(a.byKind)
		.map(([k, n]) => `${k} ${n}`)
		.join(", ");
	return `${a.count} failed visit${a.count === 1 ? "" : "s"} absorbed by on-fail: continue (${kinds})`;
}
