/**
 * Which budget binds a run, and where each limit comes from: the flow's `budget:`, its chain's
 * `--budget-total` and `--budget-warning`, and a launch's `--budget-tokens`, `--budget-cost`,
 * `--budget-turns`. One function, so `run`, `chain`, `/run` and `plan` cannot disagree:
 *
 * - a flow's `budget: tokens` and its chain's `--budget-total` both bind: the smaller wins;
 * - a launch flag replaces the file's limit of its kind (a resume may raise a spent budget);
 * - a chain's `--budget-warning` is a number of tokens, kept as written: no launch flag rescales it, and it
 *   warns on its own when no limit stands beside it; without one, the warning fires at 80% of each limit.
 */
import type { Located } from "../language/ast.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { Budget } from "./budget.ts";

/** A launch's budget flags, already read as numbers. */
export interface LaunchBudget {
	tokens?: number;
	cost?: number;
	turns?: number;
}

/** One limit in force, where it is written, and what it overruled. */
export interface BudgetLine {
	limit: "tokens" | "cost" | "turns" | "warning";
	value: number;
	/** Who set it, in words: `the flow's budget: tokens`, `the chain's --budget-total`, `--budget-tokens`. */
	from: string;
	/** `file:line:col` of the value, absent for a launch flag. */
	at?: string;
	/** Limits of the same kind that were given too and do not bind. */
	overruled: { value: number; from: string; at?: string }[];
}

/** The budget a run gets, and each of its limits with its source, for `plan` and for the run's record. */
export interface BudgetInForce {
	budget?: Budget;
	lines: BudgetLine[];
}

type Candidate = { value: number; from: string; at?: string };

/** Where a located value is written, `file:line:col`, with `display` shortening the file. */
function where(flow: CheckedFlow, v: Located<number>, display: (file: string) => string): string {
	return `${display(flow.file)}:${v.range.start.line}:${v.range.start.column}`;
}

/** The budget in force for `flow` launched with `launch`; `display` shortens file names for messages. */
export function budgetInForce(
	flow: CheckedFlow,
	launch: LaunchBudget = {},
	display: (file: string) => string = (f) => f,
): BudgetInForce {
	const own = (v: Located<number> | undefined, from: string): Candidate[] =>
		v ? [{ value: v.value, from, at: where(flow, v, display) }] : [];
	const tokens = [
		...own(flow.budget?.tokens, "the flow's `budget: tokens`"),
		...own(flow.chainBudget?.total, "the chain's `--budget-total`"),
	];
	const kinds: [BudgetLine["limit"], Candidate[], number | undefined, string][] = [
		["tokens", tokens, launch.tokens, "--budget-tokens"],
		["cost", own(flow.budget?.cost, "the flow's `budget: cost`"), launch.cost, "--budget-cost"],
		["turns", own(flow.budget?.turns, "the flow's `budget: turns`"), launch.turns, "--budget-turns"],
	];
	const lines: BudgetLine[] = [];
	const budget: Budget = {};
	for (const [limit, written, flag, flagName] of kinds) {
		const launched = flag === undefined ? [] : [{ value: flag, from: flagName }];
		const [first, ...rest] = [...launched, ...[...written].sort((a, b) => a.value - b.value)];
		if (!first) continue;
		budget[limit as "tokens" | "cost" | "turns"] = first.value;
		lines.push({ limit, ...first, overruled: rest });
	}
	const warning = flow.chainBudget?.warning;
	if (warning) {
		budget.warnTokens = warning.value;
		const at = where(flow, warning, display);
		lines.push({ limit: "warning", value: warning.value, from: "the chain's `--budget-warning`", at, overruled: [] });
	}
	return Object.keys(budget).length ? { budget, lines } : { lines };
}

/** The limits alone (no warning), for a plan's first row; undefined when none binds. */
export function budgetLimits(b: BudgetInForce): { tokens?: number; cost?: number; turns?: number } | undefined {
	const { tokens, cost, turns } = b.budget ?? {};
	const limits = { ...(tokens ? { tokens } : {}), ...(cost ? { cost } : {}), ...(turns ? { turns } : {}) };
	return Object.keys(limits).length ? limits : undefined;
}

/** One line of `plan` per limit: `budget tokens 100000 · the chain's --budget-total (chain.md:5:40) · …`. */
export function showBudget(b: BudgetInForce): string[] {
	const amount = (l: { value: number }, limit: BudgetLine["limit"]) =>
		limit === "cost" ? `$${l.value}` : limit === "turns" ? `${l.value} turns` : `${l.value} tokens`;
	const source = (c: Candidate) => `${c.from}${c.at ? ` (${c.at})` : ""}`;
	const lines = b.lines.map((l) => {
		const head = l.limit === "warning" ? `budget warning at ${l.value} tokens` : `budget ${amount(l, l.limit)}`;
		const over = l.overruled.map((o) => ` · not ${amount(o, l.limit)} from ${source(o)}`).join("");
		return `${head} · from ${source(l)}${over}`;
	});
	const limited = b.budget && (b.budget.tokens ?? b.budget.cost ?? b.budget.turns) !== undefined;
	if (limited && b.budget?.warnTokens === undefined) {
		lines.push("budget warning at 80% of each limit (the default)");
	}
	return lines;
}
