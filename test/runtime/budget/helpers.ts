/**
 * Watches a budgeted run from inside the spawn: each turn that really starts (past the budget's gate,
 * which refuses at `onStart`) and ends, with its tokens, in one log beside the budget's own events, so a
 * test can say "no turn started after the limit was crossed" and "the overshoot is at most the turns in
 * flight at the crossing".
 */
import { expect } from "vitest";
import type { FlowEvent } from "../../../src/runtime/events.ts";
import type { Spawn } from "../../../src/runtime/subagent.ts";

export type Entry =
	| { type: "start"; id: number; label: string }
	| { type: "end"; id: number; tokens: number; cost: number }
	| { type: "exhausted" }
	| { type: "warned"; at: number }
	| { type: "counted"; tokens: number; cost: number };

export interface Tracer {
	log: Entry[];
	wrap(spawn: Spawn): Spawn;
	onEvent(event: FlowEvent): void;
	/** Tokens counted so far (ended turns). */
	spent(): number;
}

export function tracer(): Tracer {
	const log: Entry[] = [];
	let n = 0;
	const spent = () => log.reduce((sum, e) => sum + (e.type === "end" ? e.tokens : 0), 0);
	return {
		log,
		spent,
		wrap: (spawn) => async (request) => {
			const sub = await spawn(request);
			return {
				...sub,
				ask: async (task, options = {}) => {
					const id = ++n;
					let started = false;
					const r = await sub.ask(task, {
						...options,
						onStart: () => {
							const why = options.onStart?.();
							if (!why) {
								started = true;
								log.push({ type: "start", id, label: options.label ?? sub.agent });
							}
							return why;
						},
					});
					if (started) log.push({ type: "end", id, tokens: r.usage.totalTokens, cost: r.usage.cost });
					return r;
				},
			};
		},
		onEvent(event) {
			// The gauge's own count, after each turn it counted (the order in which the budget saw the turns end).
			if (event.type === "budget_spend") {
				const e = event as { tokens: number; cost: number };
				log.push({ type: "counted", tokens: e.tokens, cost: e.cost });
			}
			if (event.type === "budget_exhausted") log.push({ type: "exhausted" });
			if (event.type === "budget_warning") log.push({ type: "warned", at: spent() });
		},
	};
}

/**
 * The promise of a budget: it was crossed; no turn started after that; and what was spent past the limit
 * is at most what the turns in flight at the crossing spent. Returns how many turns started.
 */
export function expectBound(
	log: readonly Entry[],
	limit: number,
	measure: "tokens" | "cost" = "tokens",
): { started: number; inFlight: number } {
	const at = log.findIndex((e) => e.type === "exhausted");
	expect(at, "the budget was crossed").toBeGreaterThanOrEqual(0);
	const after = log.slice(at + 1).filter((e) => e.type === "start");
	expect(after, "no turn starts after the limit is crossed").toEqual([]);
	// What the gauge had counted before the turn that crossed, and at the end: everything past the limit
	// was spent by turns counted at or after the crossing, which (no start after it) were all in flight then.
	const counts = log
		.filter((e): e is Extract<Entry, { type: "counted" }> => e.type === "counted")
		.map((e) => e[measure]);
	const crossing = counts.findIndex((c) => c >= limit);
	expect(crossing, "the gauge counted past the limit").toBeGreaterThanOrEqual(0);
	const before = crossing > 0 ? counts[crossing - 1] : 0;
	const total = counts[counts.length - 1];
	expect(before).toBeLessThan(limit);
	const startedBefore = log.slice(0, at).filter((e) => e.type === "start").length;
	const inFlight = startedBefore - crossing;
	expect(inFlight, "the turns counted at or after the crossing had all started before it").toBe(
		counts.length - crossing,
	);
	// Overshoot: at most what the turns in flight at the crossing spent.
	expect(total - limit).toBeLessThanOrEqual(total - before);
	return { started: log.filter((e) => e.type === "start").length, inFlight };
}
