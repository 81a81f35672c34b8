/**
 * A run's budget binds the whole tree: every turn, wherever it runs (an agent node, a map's branch, a
 * called flow, a swarm's member, a continuation, a retry, a `subagent` tool call inside a turn), is gated
 * by the same gauge as it starts and counted against it as it ends. The gate is a spawn wrapper, so a
 * turn cannot reach a model without passing it: no path has to remember to count.
 *
 * At the warning threshold a signal fires (when the turn that crossed it ends, not after the fact); at the
 * limit no new turn starts, running turns are told to land, and the turns that would have started fail
 * with kind `budget` (a stop: resumable with a raised budget, never absorbed by `on-fail: continue`).
 *
 * "At most" with concurrency: a turn is checked when it starts and counted when it ends, so the spend can
 * pass the limit by what the turns already in flight at the crossing spend, and by nothing else.
 */
import type { Result } from "./result.ts";
import type { AskOptions, Spawn, Subagent } from "./subagent.ts";
import { addUsage, emptyUsage, type Usage } from "./usage.ts";

/** Limits of one run; any may be absent. */
export interface Budget {
	tokens?: number;
	/** In the providers' currency (USD), from each model's prices as pi counts them. */
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

/** What a turn needs of a budget: may I start, I started, I ended having spent this. */
export interface TurnBudget {
	/** Why no new turn may start, or undefined while there is room. */
	exceeded(): string | undefined;
	/** Counts a turn that starts (the `turns` limit). */
	startTurn(): void;
	/** Records an ended turn's spending; `model` names an unpriced model once. */
	spend(usage: Usage, model?: string): void;
}

/** The budget's state as the run spends. */
export interface BudgetGauge extends TurnBudget {
	/** The limits, as given. */
	readonly budget: Budget | undefined;
	/** Spent so far (earlier lives included). */
	used(): { tokens: number; cost: number; turns: number };
}

/** Thresholds crossed, told once each. */
export interface BudgetSignals {
	warned(spent: string): void;
	exhausted(reason: string): void;
	/** A cost budget met a model with no price: its turns count $0. Told once per model. */
	unpriced?(model: string, note: string): void;
	/** After every ended turn: what counted so far, for a view that draws the budget's spend. */
	counted?(used: { tokens: number; cost: number; turns: number }): void;
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
	const unpriced = new Set<string>();
	const over = (): string | undefined => {
		if (!budget) return undefined;
		if (budget.tokens !== undefined && used.tokens >= budget.tokens)
			return `the token budget is spent (${used.tokens} of ${budget.tokens})`;
		if (budget.cost !== undefined && used.cost >= budget.cost)
			return `the cost budget is spent ($${used.cost.toFixed(4)} of $${budget.cost})`;
		if (budget.turns !== undefined && used.turns >= budget.turns)
			return `the turn budget is spent (${used.turns} of ${budget.turns})`;
		return undefined;
	};
	const near = (): string | undefined => {
		if (!budget) return undefined;
		const parts: string[] = [];
		if (budget.warnTokens !== undefined) {
			const limit = budget.tokens === undefined ? "" : ` (limit ${budget.tokens})`;
			if (used.tokens >= budget.warnTokens)
				parts.push(`${used.tokens} tokens, past the warning at ${budget.warnTokens}${limit}`);
		} else if (budget.tokens !== undefined && used.tokens >= warnAt * budget.tokens)
			parts.push(`${used.tokens} of ${budget.tokens} tokens`);
		if (budget.cost !== undefined && used.cost >= warnAt * budget.cost)
			parts.push(`$${used.cost.toFixed(4)} of $${budget.cost}`);
		if (budget.turns !== undefined && used.turns >= warnAt * budget.turns)
			parts.push(`${used.turns} of ${budget.turns} turns`);
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
		budget,
		exceeded: over,
		used: () => ({ ...used }),
		spend(usage, model) {
			used.tokens += usage.totalTokens;
			used.cost += usage.cost;
			// A provider that reports tokens but no cost has no price in pi's model table: say so, count $0.
			if (budget?.cost !== undefined && model && usage.totalTokens > 0 && usage.cost === 0 && !unpriced.has(model)) {
				unpriced.add(model);
				signals?.unpriced?.(
					model,
					`${model} has no price, so its turns count $0 against the cost budget of $${budget.cost}`,
				);
			}
			if (budget) signals?.counted?.({ ...used });
			check();
		},
		startTurn() {
			used.turns++;
			check();
		},
	};
}

/**
 * Gates every turn of the subagents `spawn` makes: a turn is refused (kind `budget`, nothing spent)
 * when the budget is exceeded as it is asked and again as it really starts (`onStart`, after any wait a
 * wrapper imposes), and counted as it ends. Each subagent hands its own `subagent` tool a budget through
 * the spawn request; what those children spent is counted as they end, and taken out of the parent's
 * turn (pi adds a tool's usage to its session), so no token is counted twice. `running` holds the
 * subagents in a turn, for the land-the-plane directive.
 */
export function budgetedSpawn(spawn: Spawn, budget: TurnBudget, running?: Set<Pick<Subagent, "steer">>): Spawn {
	return spawnGated.bind(undefined, spawn, budget, running);
}

// Chained rather than awaited, here and in each turn's gate: every spawn and turn of a run passes here. And
// classes with bound methods rather than closures made per spawn and per turn: V8 keeps a closure's
// optimized code only while an instance of it lives, so those were compiled again after every full
// collection, in every run.
function spawnGated(
	spawn: Spawn,
	budget: TurnBudget,
	running: Set<Pick<Subagent, "steer">> | undefined,
	request: Parameters<Spawn>[0],
): Promise<Subagent> {
	const forChildren = new ChildBudget(budget);
	let opening: Promise<Subagent>;
	try {
		opening = spawn({ ...request, budget: forChildren });
	} catch (error) {
		return Promise.reject(error);
	}
	const gate = new Gate(budget, forChildren, running);
	return opening.then(gate.wrap.bind(gate));
}

/** One subagent's gate: its turns are refused once the budget is spent, and counted as they end. */
class Gate {
	readonly budget: TurnBudget;
	readonly forChildren: ChildBudget;
	readonly running: Set<Pick<Subagent, "steer">> | undefined;
	sub!: Subagent;
	gated!: Subagent;
	constructor(budget: TurnBudget, forChildren: ChildBudget, running: Set<Pick<Subagent, "steer">> | undefined) {
		this.budget = budget;
		this.forChildren = forChildren;
		this.running = running;
	}

	wrap(sub: Subagent): Subagent {
		this.sub = sub;
		this.gated = { ...sub, ask: this.ask.bind(this) };
		return this.gated;
	}

	ask(task: string, options: AskOptions = {}): Promise<Result> {
		const early = this.budget.exceeded();
		if (early) return Promise.resolve(refused(this.sub, early));
		const turn = new GatedTurn(this, options);
		this.forChildren.inside = undefined;
		let asked: Promise<Result>;
		try {
			asked = this.sub.ask(task, { ...options, onStart: turn.start.bind(turn) });
		} catch (error) {
			this.running?.delete(this.gated);
			return Promise.reject(error);
		}
		return asked.then(turn.ended.bind(turn), turn.failed.bind(turn));
	}
}

/** One turn through a {@link Gate}: checked again as it really starts, counted as it ends. */
class GatedTurn {
	readonly gate: Gate;
	readonly options: AskOptions;
	started = false;
	refusedAtStart = false;
	constructor(gate: Gate, options: AskOptions) {
		this.gate = gate;
		this.options = options;
	}

	start(): string | undefined {
		if (this.started) return undefined;
		const over = this.gate.budget.exceeded();
		if (over) {
			this.refusedAtStart = true;
			return over;
		}
		this.started = true;
		this.gate.budget.startTurn();
		this.gate.running?.add(this.gate.gated);
		return this.options.onStart?.();
	}

	ended(result: Result): Result {
		const { budget, forChildren, running, gated, sub } = this.gate;
		running?.delete(gated);
		if (this.refusedAtStart && !this.started)
			return { ...result, ok: false, errorKind: "budget", error: result.error ?? "the run's budget is spent" };
		// A port that never calls `onStart` (a test double) still has its turn counted.
		if (!this.started) budget.startTurn();
		const inside = forChildren.inside;
		budget.spend(inside ? minus(result.usage, inside) : result.usage, result.model || sub.model);
		forChildren.inside = undefined;
		return result;
	}

	failed(error: unknown): never {
		this.gate.running?.delete(this.gate.gated);
		throw error;
	}
}

/**
 * The budget a subagent hands its own `subagent` tool: the run's, and what those children spent (absent
 * until one spends: most turns call no `subagent` tool), to take out of the turn's own usage. A class, not
 * an object of closures: every spawn makes one.
 */
class ChildBudget implements TurnBudget {
	readonly run: TurnBudget;
	inside: Usage | undefined = undefined;
	constructor(run: TurnBudget) {
		this.run = run;
	}
	exceeded(): string | undefined {
		return this.run.exceeded();
	}
	startTurn(): void {
		this.run.startTurn();
	}
	spend(u: Usage, model?: string): void {
		this.inside = addUsage(this.inside ?? emptyUsage(), u);
		this.run.spend(u, model);
	}
}

function refused(sub: Subagent, reason: string): Result {
	return {
		agent: sub.agent,
		model: sub.model,
		output: "",
		messages: [],
		usage: emptyUsage(),
		ok: false,
		error: reason,
		errorKind: "budget",
	};
}

/** The counters `minus` subtracts: every field of a usage but the optional retry figures. */
const COUNTERS = Object.keys(emptyUsage()) as (keyof Usage)[];

/** `a - b` field by field, never below zero (a child counted more than its parent's session reports). */
function minus(a: Usage, b: Usage): Usage {
	const out = emptyUsage();
	for (const k of COUNTERS) out[k] = Math.max(0, (a[k] ?? 0) - (b[k] ?? 0));
	return out;
}

/** The directive a running turn gets when the budget runs out. */
export const LAND_THE_PLANE =
	"The run's budget is spent. Do not start anything new: finish the step you are on, leave the work in a consistent state, and answer now with what you have.";
