/**
 * A flow's plan as `pi-flows plan` and the MCP server's `flow_plan` show it: each node's row (model,
 * timeout, worst case), every budget in force and where it comes from, turns in flight, the forecast
 * from earlier runs, and the model names pi cannot resolve (each a fault at its column). Nothing spawns.
 */
import type { Fault } from "../faults/index.ts";
import {
	budgetInForce,
	budgetLimits,
	type LaunchBudget,
	type ResolveModel,
	resolveModels,
	showBudget,
} from "../engine/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import { inFlightOf, overshootText, planOf, showPlan } from "../language/render/index.ts";
import { forecastOf, showForecast } from "../runs/index.ts";

/** What a plan is drawn with: the host's model resolver, and the launch options a run would take. */
export interface PlanOptions {
	resolveModel: ResolveModel;
	/** `--model`. */
	model?: string;
	timeoutMs?: number;
	budget?: LaunchBudget;
	/** Where earlier runs' folders are, for the forecast. */
	runsHome: string;
	/** The pi agent folder whose run key seals the runs the forecast reads. Default: pi's agent folder. */
	keyDir?: string;
	/** How a path is shown (relative to the working folder). */
	display: (path: string) => string;
}

/** The plan as data (`json`), as text (`text`), and the model names no run could resolve. */
export function planFlow(
	flow: CheckedFlow,
	options: PlanOptions,
): { json: Record<string, unknown>; text: string; unknown: Fault[] } {
	const { display, model } = options;
	const budget = budgetInForce(flow, options.budget ?? {}, display);
	const limits = budgetLimits(budget);
	const resolve = (ref: string | undefined) => {
		const r = options.resolveModel(ref);
		return r.ok ? r.value.ref : undefined;
	};
	const resolved = resolveModels(flow, options.resolveModel, model);
	const rows = planOf(flow, {
		resolveModel: resolve,
		...(limits ? { budget: limits } : {}),
		file: display(flow.file),
		display,
		...(model ? { runModel: model } : {}),
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
	});
	const forecast = forecastOf(options.runsHome, flow.name.value, options.keyDir);
	const budgetLines = showBudget(budget);
	if (budgetLines.length) budgetLines.push(`worst case ≤ ${flow.bound.turns} turns`);
	// The largest overshoot a budget allows, next to the worst case (docs/runs.md, "at most").
	const overshoot = overshootText(flow.bound);
	return {
		json: { rows, budget: budget.lines, inFlight: inFlightOf(flow.bound), ...(forecast ? { forecast } : {}) },
		text: [showPlan(rows), ...budgetLines, overshoot, forecast ? showForecast(forecast) : undefined]
			.filter(Boolean)
			.join("\n"),
		unknown: resolved.ok ? [] : resolved.faults,
	};
}
