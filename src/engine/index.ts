export { evaluate, type Lookup, type Outcome } from "./evaluate.ts";
export { createLedger, type Ledger, type Obligation } from "./ledger.ts";
export {
	type ModelDoor,
	type ModelSource,
	modelKey,
	type NodeModel,
	readyModels,
	type ResolveModel,
	resolveModels,
} from "./models.ts";
export { type FlowResult, slugOf, type VisitOutcome } from "./run.ts";
export { type Absorbed, absorbedOf, formatAbsorbed } from "./absorbed.ts";
export { composeTask, renderRead } from "./turn.ts";
export type { RunOptions, RunPlugin, World } from "./world.ts";
export { prepareRun, type RunStage, type RunStageOptions } from "./run-stage.ts";
export * from "./ports/index.ts";
export { type Budget, type BudgetGauge, budgetGauge, LAND_THE_PLANE } from "./budget.ts";
export {
	type BudgetInForce,
	type BudgetLine,
	budgetInForce,
	budgetLimits,
	type LaunchBudget,
	showBudget,
} from "./budget-in-force.ts";
export { type EndedVisit, endedOf, NO_RECORD, type Replay, type RunRecorder, type TreeEffect } from "./record.ts";
export { type ReuseAnswer, type ReuseQuery, type ReuseSource, UNKNOWN_TREE } from "./reuse.ts";
export { DRY_ASK, DRY_CHECK, dryGit, drySpawn } from "./dry.ts";
export { checkpointTool, continuationPrompt, finishTool, handedOff, type HandoffCapture } from "./handoff-tools.ts";
export { DEFAULT_IDLE_MS, focusOf } from "./world.ts";
export { recordRunStart, recordVisitStart } from "./start-tree.ts";
