/**
 * Watches a budgeted run from inside the spawn: each turn that really starts (past the budget's gate,
 * which refuses at `onStart`) and ends, with its tokens, in one log beside the budget's own events, so a
 * test can say "no turn started after the limit was crossed" and "the overshoot is at most the turns in
 * flight at the crossing".
 */
import { expect } from "vitest";
import type { FlowEvent } from "../../src/runtime/events.ts";
import type { Spawn } from "../../src/runtime/subagent.ts";

export type Entry = { type: "start"; id: number; label: string } | { type: "end"; id: number; tokens: number } | { type: "exhausted" } | { type: "warned"; at: number };

export interface Tracer {
	log: Entry[];
	wrap(spawn: Spawn): Spawn;
	onEvent(event: FlowEvent | { type: string }): void;
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
					if (started) log.push({ type: "end", id, tokens: r.usage.totalTokens });
					return r;
				},
			};
		},
		onEvent(event) {
			if (event.type === "budget_exhausted") log.push({ type: "exhausted" });
			if (event.type === "budget_warning") log.push({ type: "warned", at: spent() });
		},
	};
}

/**
 * The promise of a budget: it was crossed; no turn started after that; and what was spent past the limit
 * is at most what the turns in flight at the crossing spent. Returns how many turns started.
 */
export function expectBound(log: readonly Entry[], limit: number): { started: number; inFlight: number } {
	const at = log.findIndex((e) => e.type === "exhausted");
	expect(at, "the budget was crossed").toBeGreaterThanOrEqual(0);
	const after = log.slice(at + 1).filter((e) => e.type === "start");
	expect(after, "no turn starts after the limit is crossed").toEqual([]);
	// The turn whose end crossed the limit is logged just before the crossing (the gate counts it as it returns).
	let crossing = at - 1;
	while (crossing >= 0 && log[crossing].type !== "end") crossing--;
	const prior = log.slice(0, Math.max(0, crossing));
	const ended = new Set(prior.filter((e) => e.type === "end").map((e) => (e as { id: number }).id));
	const inFlight = log.slice(0, at).filter((e) => e.type === "start" && !ended.has(e.id)).map((e) => (e as { id: number }).id);
	const tokensOf = (id: number) => log.reduce((s, e) => s + (e.type === "end" && e.id === id ? e.tokens : 0), 0);
	const beforeCrossing = prior.reduce((s, e) => s + (e.type === "end" ? e.tokens : 0), 0);
	const total = log.reduce((s, e) => s + (e.type === "end" ? e.tokens : 0), 0);
	// Before the crossing the spend was under the limit; everything past it is the in-flight turns landing.
	expect(beforeCrossing).toBeLessThan(limit);
	expect(total).toBeGreaterThanOrEqual(limit);
	expect(total - limit, "overshoot <= the turns in flight at the crossing").toBeLessThanOrEqual(inFlight.reduce((s, id) => s + tokensOf(id), 0));
	return { started: log.filter((e) => e.type === "start").length, inFlight: inFlight.length };
}
