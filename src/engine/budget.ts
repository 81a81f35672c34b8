/** The run's budget lives in the runtime, beside the spawn it gates; the evaluator uses it from there. */
export {
	type Budget,
	type BudgetGauge,
	type BudgetSignals,
	budgetGauge,
	budgetedSpawn,
	LAND_THE_PLANE,
	type TurnBudget,
} from "../runtime/index.ts";
