/**
 * `pi-flows plan <flow>`: what the flow would run, node by node, with each node's model, timeout and worst
 * case, before anything spawns. `--model` and `--timeout` show the plan a run with those options would
 * follow; `--json` prints the rows as data.
 */
import { budgetInForce, showBudget } from "../flow/index.ts";
import { planOf, showPlan } from "../flow/render/index.ts";
import { budgetFlags } from "./launch.ts";
import { parseDuration } from "../flow/syntax/index.ts";
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
		io.stderr(`pi-flows plan: --timeout takes a duration like 90s, 10m or 1h30m (at most 24d), not \`${timeout}\``);
		return 2;
	}
	const launch = budgetFlags(args, undefined);
	if (!launch.ok) {
		io.stderr(`pi-flows plan: ${launch.error}`);
		return 2;
	}
	const checked = checkedFlowArg("plan", args, io);
	if (!checked.ok) return checked.code;
	const display = (p: string) => displayPath(p, io.cwd);
	const model = flag(args, "model");
	// Every budget in force and where it comes from: the flow's, its chain's, and the launch flags given here.
	const budget = budgetInForce(checked.value, launch.value ?? {}, display);
	const { tokens, cost, turns } = budget.budget ?? {};
	const limits = { ...(tokens ? { tokens } : {}), ...(cost ? { cost } : {}), ...(turns ? { turns } : {}) };
	const rows = planOf(checked.value, {
		...(Object.keys(limits).length ? { budget: limits } : {}),
		file: display(checked.value.file),
		display,
		...(model ? { runModel: model } : {}),
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
	});
	const forecast = forecastOf(runsHome(io.cwd, flag(args, "runs-dir")), checked.value.name.value);
	const budgetLines = showBudget(budget);
	if (budgetLines.length) budgetLines.push(`worst case ≤ ${checked.value.bound.turns} turns`);
	if (args.flags.has("json")) io.stdout(JSON.stringify({ rows, budget: budget.lines, ...(forecast ? { forecast } : {}) }, null, 2));
	else io.stdout([showPlan(rows), ...budgetLines, forecast ? showForecast(forecast) : undefined].filter(Boolean).join("\n"));
	return 0;
}
