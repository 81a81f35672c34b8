/**
 * The largest overshoot a budget allows, said beside the worst case: a turn is checked as it starts and
 * counted as it ends, so a token or cost limit can be passed by what the turns already in flight spend
 * when it is crossed, and by nothing else; a turn limit is never passed.
 *
 *   worst case ≤ 30 turns; at most 3 turns in flight at once, so a token or cost budget can be passed by
 *   what 3 turns spend (a turn budget never is)
 */
import type { Bound } from "../check/index.ts";

/** The most turns in flight at once for `bound` (1 when it does not say). */
export function inFlightOf(bound: Bound): number {
	return bound.inFlight ?? 1;
}

/** One line for `plan`. */
export function overshootText(bound: Bound): string {
	const n = inFlightOf(bound);
	const turns = `${n} turn${n === 1 ? "" : "s"}`;
	return `worst case ≤ ${bound.turns} turns; at most ${turns} in flight at once, so a token or cost budget can be passed by what ${turns} spend (a turn budget never is)`;
}
