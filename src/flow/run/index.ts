export { type ModelSource, type NodeModel, type ResolveModel, resolveModels } from "./models.ts";
export { type FlowResult, type NodeOutcome, type RunOptions, runFlow } from "./run.ts";
export { composeTask, type Ended, readValue } from "./task.ts";
export { evaluate, type Lookup, type Outcome } from "./evaluate.ts";
