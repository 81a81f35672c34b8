/**
 * A run's budget binds the whole tree: every turn, nested and parallel ones included, counts against it.
 * At the warning threshold an event says so; at the limit no new turn starts, running turns are told to
 * land, and the visits that would have started fail with kind `budget` (a stop: resumable with a raised
 * budget, never absorbed by `on-fail: continue`).
 */
import type { Usage } from "../../runtime/usage.ts";

/** Limits of one run; any may be absent. */
export interface Budget {
	tokens?: number;
	cost?: number;
	turns?: number;
	/** Fraction of a limit at which a warning event fires. Default 0.8. */
	warnAt?: number;
	/**
	 * Tokens at which the warning fires, as a file states it (a chain's `--budget-warning`): absolute, so a
	 * launch's `--budget-tokens` never rescales it, and it works without any limit beside it.
	 */
	warnTokens?: number;
}

/** The budget's state as the run spends. */
export interface BudgetGauge {
	/** Why no new turn may start, or undefined while there is room. */
	exceeded(): string | undefined;
	/** Records a turn's spending. */
	spend(usage: Usage): void;
	/** Counts a turn about to start (the `turns` limit). */
	startTurn(): void;
}

/** Thresholds crossed, told once each. */
export interface BudgetSignals {
	warned(spent: string): void;
	exhausted(reason: string): void;
}

/** A gauge over `budget`; spending so far may be given for a resume. */
export function budgetGauge(
	budget: Budget | undefined,
	spent: { tokens: number; cost: number; turns: number } = { tokens: 0, cost: 0, turns: 0 },
	signals?: BudgetSignals,
): BudgetGauge {
	const used = { ...spent };
	const warnAt = budget?.warnAt ?? 0.8;
	let warned = false;
	let exhausted = false;
	const over = (): string | undefined => {
		if (!budget) return undefined;
		if (budget.tokens !== undefined && used.tokens >= budget.tokens) return `the token budget is spent (${used.tokens} of ${budget.tokens})`;
		if (budget.cost !== undefined && used.cost >= budget.cost) return `the cost budget is spent ($${used.cost.toFixed(4)} of $${budget.cost})`;
		if (budget.turns !== undefined && used.turns >= budget.turns) return `the turn budget is spent (${used.turns} of ${budget.turns})`;
		return undefined;
	};
	const near = (): string | undefined => {
		if (!budget) return undefined;
		const parts: string[] = [];
		if (budget.warnTokens !== undefined) {
			const limit = budget.tokens === undefined ? "" : ` (limit ${budget.tokens})`;
			if (used.tokens >= budget.warnTokens) parts.push(`${used.tokens} tokens, past the warning at ${budget.warnTokens}${limit}`);
		} else if (budget.tokens !== undefined && used.tokens >= warnAt * budget.tokens) parts.push(`${used.tokens} of ${budget.tokens} tokens`);
		if (budget.cost !== undefined && used.cost >= warnAt * budget.cost) parts.push(`$${used.cost.toFixed(4)} of $${budget.cost}`);
		if (budget.turns !== undefined && used.turns >= warnAt * budget.turns) parts.push(`${used.turns} of ${budget.turns} turns`);
		return parts.length ? parts.join(", ") : undefined;
	};
	const check = () => {
		const n = near();
		if (n && !warned) {
			warned = true;
			signals?.warned(n);
		}
		const x = over();
		if (x && !exhausted) {
			exhausted = true;
			signals?.exhausted(x);
		}
	};
	return {
		exceeded: over,
		spend(usage) {
			used.tokens += usage.totalTokens;
			used.cost += usage.cost;
			check();
		},
		startTurn() {
			used.turns++;
			check();
		},
	};
}

/** The directive a running turn gets when the budget runs out. */
export const LAND_THE_PLANE =
	"The run's budget is spent. Do not start anything new: finish the step you are on, leave the work in a consistent state, and answer now with what you have.";
