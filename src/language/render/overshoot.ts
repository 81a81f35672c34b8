/**
 * The largest overshoot a budget allows, said beside the worst case: a turn is checked as it starts and
 * counted as it ends, so a token or cost limit can be passed by what the turns already in flight spend
 * when it is crossed, and by nothing else; a turn limit is never passed.
 *
 *   worst case ≤ 30 turns; at most 3 turns in flight at once, so a token or cost budget can be passed by
 *   what 3 turns spend (a turn budget never is)
 *   worst case ≤ 4 turns; one turn at a time, so a token or cost budget can be passed by what that turn
 *   spends (a turn budget never is)
 */
import type { Bound } from "../check/index.ts";

/** The most turns in flight at once for `bound` (1 when it does not say). */
export function inFlightOf(bound: Bound): number {
	return bound.inFlight ?? 1;
}

/** One line for `plan`. */
export function overshootText(bound: Bound): string {
	const n = inFlightOf(bound);
	// One turn at a time "spends", never "spend": the sentence is said for each shape of flow.
	const inFlight = n === 1 ? "one turn at a time" : `at most ${n} turns in flight at once`;
	const spend = n === 1 ? "what that turn spends" : `what ${n} turns spend`;
	return `worst case ≤ ${bound.turns} turns; ${inFlight}, so a token or cost budget can be passed by ${spend} (a turn budget never is)`;
}
