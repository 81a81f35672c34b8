export {
	type Bound,
	computeBounds,
	DEFAULT_CHECK_TIMEOUT_MS,
	DEFAULT_CONTINUATIONS,
	DEFAULT_TURN_TIMEOUT_MS,
	type TimeoutSource,
	turnTimeout,
} from "./bounds.ts";
export { type CheckContext, checkFlow } from "./check.ts";
export { type CheckedFacts, type CheckedFlow, scriptableAddresses } from "./checked.ts";
export { type ConditionCheck, checkCondition } from "./condition.ts";
export { type ConditionEnv, type Resolution, readFields, unknownName } from "./condition-env.ts";
export { ERROR_TYPE, HANDOFF_TYPE, OBLIGATIONS_TYPE, VERDICT_TYPE } from "./node-types.ts";
export type { CalleeResolver, SkillResolver } from "./walk.ts";
export type { Binding, Readable, Resolved, Scope, ScopePoints } from "./scope.ts";
export { agentNotes } from "./notes.ts";
