/**
 * The runtime's door: the contracts the evaluator, the combinators and pi share (results and failures,
 * usage, events, the `Spawn` port, the pool, budgets, transport retries). Everything outside imports them
 * here, so the folder may rearrange its files without touching its users.
 */
export { abortFailure, type AbortFailure, cancelReason, deadline, stopReason, timeoutReason } from "./abort.ts";
export {
	type Budget,
	budgetedSpawn,
	budgetGauge,
	type BudgetGauge,
	type BudgetSignals,
	LAND_THE_PLANE,
	type TurnBudget,
} from "./budget.ts";
export { mapConcurrent } from "./concurrent.ts";
export { formatDuration } from "./duration.ts";
export { type EventSink, fanOutEvents, type FlowEvent, type ReuseNote, TRACE_ONLY_EVENTS } from "./events.ts";
export {
	assertNever,
	type Failure,
	FAILURE_KIND_TABLE,
	FAILURE_KINDS,
	type FailureKind,
	failureText,
	readFailure,
	readFailureKind,
} from "./failure.ts";
export { createGate, type Gate } from "./gate.ts";
export {
	addressOf,
	enclosing,
	instanceOf,
	loopRoundOf,
	mapItemOf,
	nodeOf,
	type VisitStep,
	visitSteps,
} from "./visit-path.ts";
export { createPool, type Held, type SubagentPool, type TurnOptions } from "./pool.ts";
export type { ModelRequest, RequestContent, RequestUsage, ToolEnd } from "./requests.ts";
export { type ErrorKind, flatFailure, type Result } from "./result.ts";
export type { AskOptions, Spawn, SpawnRequest, Subagent } from "./subagent.ts";
export { longTimeout, type LongTimer, type TurnWatch, watchTurn } from "./timer.ts";
export type { ToolSpec } from "./tool.ts";
export { createTrail, type Trail, type WorkflowUsage } from "./trail.ts";
export {
	limitStatus,
	mergePolicy,
	parseRetryAfter,
	retryDelay,
	transientStatus,
	type TransportPolicy,
	type TransportRetry,
} from "./transport.ts";
export { addCounters, addUsage, emptyUsage, formatTokens, formatUsage, type Usage } from "./usage.ts";
export { safeListener, type WorkflowEvent } from "./workflow-events.ts";
export type { Lifetime, WorkflowOptions } from "./workflow-options.ts";
