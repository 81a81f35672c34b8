/**
 * `--budget-tokens`: no turn starts once the run has spent its tokens. The count is pi's own (each turn's
 * usage as the subagent measured it), and the check sits in front of every turn rather than on a timer,
 * so the last turn that crossed the line is the last one: the run is then stopped with the reason, which
 * cuts any turn still in flight, and the refused turn fails `budget` naming how much was spent.
 */
import type { Result } from "../../runtime/result.ts";
import type { Spawn, Subagent } from "../../runtime/subagent.ts";
import { emptyUsage } from "../../runtime/usage.ts";

/** A spawn that keeps the run inside `limit` tokens, and what it has counted. */
export interface TokenBudget {
	spawn: Spawn;
	/** Tokens spent by turns that ended. */
	spent(): number;
	/** Why turns were refused, once they were. */
	exhausted(): string | undefined;
}

/** Wraps `spawn`; `stop` is called once, with the reason, when the first turn past the budget is refused. */
export function tokenBudget(spawn: Spawn, limit: number, stop: (why: string) => void): TokenBudget {
	let spent = 0;
	let reason: string | undefined;
	const guard = (sub: Subagent): Subagent => ({
		...sub,
		ask: async (task, options) => {
			if (spent >= limit) {
				if (!reason) {
					reason = `the token budget is spent (${spent} of ${limit} tokens)`;
					stop(reason);
				}
				const refused: Result = { agent: sub.agent, model: sub.model, output: "", messages: [], usage: emptyUsage(), ok: false, error: reason, errorKind: "budget" };
				return refused;
			}
			const result = await sub.ask(task, options);
			spent += result.usage.totalTokens;
			return result;
		},
	});
	return { spawn: async (request) => guard(await spawn(request)), spent: () => spent, exhausted: () => reason };
}
