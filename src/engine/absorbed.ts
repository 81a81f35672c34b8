/**
 * Failures `on-fail: continue` absorbed: the run went on past them, and says so. A failed leaf visit
 * (an agent turn, a swarm, a check, a question, a commit) that is not where the run's own failure started
 * and not a stop (a run stop, a fail-fast cut, a spent budget, a blocker) was absorbed by a node above it.
 */
import { FAILURE_KIND_TABLE, type FailureKind } from "../runtime/index.ts";
import type { VisitOutcome } from "./run.ts";

/** How many visits were absorbed, by kind, and which. */
export interface Absorbed {
	count: number;
	/** `{ provider: 2, schema: 1 }`. */
	byKind: Partial<Record<FailureKind, number>>;
	visits: { path: string; kind: FailureKind; message: string }[];
}

/**
 * The absorbed failures among a run's visits; undefined when there are none. `leaves` are the kinds whose
 * visits run no inner visit (`LanguageKinds.leaves`, from the flow's own table): a block's failure is an
 * inner visit's, counted there.
 */
export function absorbedOf(
	leaves: ReadonlySet<string>,
	visits: readonly VisitOutcome[],
	failedAt?: string,
): Absorbed | undefined {
	const out: Absorbed = { count: 0, byKind: {}, visits: [] };
	for (const v of visits) {
		if (v.ok || !leaves.has(v.kind) || v.path === failedAt) continue;
		// A visit that failed without saying how is nobody's kind: `unknown`, never a guess from its words.
		const kind = v.errorKind ?? "unknown";
		if (FAILURE_KIND_TABLE[kind].stop) continue;
		const text = v.error ?? "failed";
		out.count++;
		out.byKind[kind] = (out.byKind[kind] ?? 0) + 1;
		out.visits.push({ path: v.path, kind, message: text.startsWith(`${kind}: `) ? text.slice(kind.length + 2) : text });
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
