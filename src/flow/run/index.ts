export { type AskAnswer, type AskCard, type AskPort, NOBODY, scriptedAsk } from "./ask.ts";
export { evaluate, type Lookup, type Outcome } from "./evaluate.ts";
export { createLedger, type Ledger, type Obligation } from "./ledger.ts";
export { type ModelSource, modelKey, type NodeModel, type ResolveModel, resolveModels } from "./models.ts";
export { type FlowResult, runFlow, slugOf, type VisitOutcome } from "./run.ts";
export { composeTask, renderRead } from "./turn.ts";
export type { RunOptions, World } from "./world.ts";
export { prepareRun, type RunStage, type RunStageOptions } from "./run-stage.ts";
export * from "./ports/index.ts";
