/**
 * The roots of a run's earlier lives, read from their `life_start` entries: a new life's root links to
 * each, so a resumed run's trace leads back to the lives before it (a resume is a new trace; the
 * conventions keep causal links across traces as span links). Shared by the run folder and the database.
 */
import type { LifeTrace } from "../telemetry/index.ts";
import type { JournalEntry } from "./journal.ts";

/** Every traced life's root, in the journal's order (a life started twice, by a takeover, once each). */
export function lifeTraces(entries: readonly JournalEntry[]): LifeTrace[] {
	const out: LifeTrace[] = [];
	for (const e of entries) if (e.type === "life_start" && e.trace) out.push({ life: e.life, traceparent: e.trace });
	return out;
}
