/**
 * `pi-flows plan <flow>`: what the flow would run, node by node, with each node's model, timeout and worst
 * case, before anything spawns. `--model` and `--timeout` show the plan a run with those options would
 * follow; `--json` prints the rows as data.
 */
import { budgetInForce, budgetLimits, resolveModels, showBudget } from "../flow/index.ts";
import { formatFaults } from "./output.ts";
import { inFlightOf, overshootText, planOf, showPlan } from "../flow/render/index.ts";
import { budgetFlags } from "./launch.ts";
import { durationFlagError, parseDuration } from "../flow/syntax/index.ts";
import { type Args, flag } from "./args.ts";
import { checkedFlowArg } from "./flow-arg.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { displayPath } from "./output.ts";
import { forecastOf, runsHome, showForecast } from "../runs/index.ts";

/**
 * Runs `plan`: 0 with the plan on stdout, 2 when the flow is not found or does not check, or names a model
 * pi cannot resolve (each a fault at its column, with the nearest models).
 */
export async function planCommand(args: Args, io: Io): Promise<number> {
	const timeout = flag(args, "timeout");
	const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout);
	if (timeout !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows plan: ${durationFlagError("--timeout", timeout)}`);
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
	const limits = budgetLimits(budget);
	// Names are resolved by pi's own resolver, as a run would, so the plan shows the model that would answer.
	// pi is loaded only here, once the flow checks: a plan names the model each name resolves to (docs/decisions.md).
	const { openHost, readScript } = await import("../pi/index.ts");
	// The embedded scripted model is pi-flows' own: a plan knows it without a script (a run needs `--script`).
	const script = readScript("turns: {}\n", "plan").value;
	const host = await openHost({
		cwd: io.cwd,
		agentDir: io.agentDir,
		projectTrusted: cliTrusted(args, io),
		...(script ? { script } : {}),
	});
	const resolve = (ref: string | undefined) => {
		const r = host.resolveModel(ref);
		return r.ok ? r.value.ref : undefined;
	};
	const resolved = resolveModels(checked.value, host.resolveModel, model);
	const unknown = resolved.ok ? [] : resolved.faults;
	const rows = planOf(checked.value, {
		resolveModel: resolve,
		...(limits ? { budget: limits } : {}),
		file: display(checked.value.file),
		display,
		...(model ? { runModel: model } : {}),
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
	});
	const forecast = forecastOf(runsHome(io.cwd, flag(args, "runs-dir")), checked.value.name.value);
	const budgetLines = showBudget(budget);
	if (budgetLines.length) budgetLines.push(`worst case ≤ ${checked.value.bound.turns} turns`);
	// The largest overshoot a budget allows, next to the worst case (docs/runs.md, "at most").
	const overshoot = overshootText(checked.value.bound);
	const json = {
		rows,
		budget: budget.lines,
		inFlight: inFlightOf(checked.value.bound),
		...(forecast ? { forecast } : {}),
	};
	if (args.flags.has("json")) io.stdout(JSON.stringify(json, null, 2));
	else
		io.stdout(
			[showPlan(rows), ...budgetLines, overshoot, forecast ? showForecast(forecast) : undefined]
				.filter(Boolean)
				.join("\n"),
		);
	if (unknown.length) {
		io.stderr(formatFaults(unknown, io.cwd));
		const names = `${unknown.length} model name${unknown.length === 1 ? "" : "s"}`;
		io.stderr(`pi-flows plan: ${names} pi cannot resolve; a run would refuse to start`);
		return 2;
	}
	return 0;
}
