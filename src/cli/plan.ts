/**
 * `pi-flows plan <flow>`: what the flow would run, node by node, with each node's model, timeout and worst
 * case, before anything spawns. `--model` and `--timeout` show the plan a run with those options would
 * follow; `--json` prints the rows as data.
 */
import { planOf, showPlan } from "../flow/render/index.ts";
import { durationFlagError, parseDuration } from "../flow/syntax/index.ts";
import { type Args, flag } from "./args.ts";
import { checkedFlowArg } from "./flow-arg.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";
import { forecastOf, runsHome, showForecast } from "../runs/index.ts";

/** Runs `plan`: 0 with the plan on stdout, 2 when the flow is not found or does not check. */
export function planCommand(args: Args, io: Io): number {
	const timeout = flag(args, "timeout");
	const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout);
	if (timeout !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows plan: ${durationFlagError("--timeout", timeout)}`);
		return 2;
	}
	const checked = checkedFlowArg("plan", args, io);
	if (!checked.ok) return checked.code;
	const display = (p: string) => displayPath(p, io.cwd);
	const model = flag(args, "model");
	const rows = planOf(checked.value, {
		file: display(checked.value.file),
		display,
		...(model ? { runModel: model } : {}),
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
	});
	const forecast = forecastOf(runsHome(io.cwd, flag(args, "runs-dir")), checked.value.name.value);
	const budget = checked.value.budget;
	const budgetLine = budget
		? `budget ${[budget.tokens && `${budget.tokens.value} tokens`, budget.cost && `$${budget.cost.value}`, budget.turns && `${budget.turns.value} turns`].filter(Boolean).join(", ")} against a worst case of ≤ ${checked.value.bound.turns} turns`
		: undefined;
	if (args.flags.has("json")) io.stdout(JSON.stringify({ rows, ...(forecast ? { forecast } : {}) }, null, 2));
	else io.stdout([showPlan(rows), budgetLine, forecast ? showForecast(forecast) : undefined].filter(Boolean).join("\n"));
	return 0;
}
