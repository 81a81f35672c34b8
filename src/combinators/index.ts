/**
 * The combinators: workflows for what a flow file cannot say, and the pieces to write more. This file is
 * the folder's only door; the flow evaluator and the library's public API import from here.
 *
 *   input + agents + WorkflowOptions  ──►  WorkflowResult (a Result read for the whole workflow, plus steps)
 *   const r = await chain({ steps: [scout, reviewer], input: "…", cwd, spawn });
 *   r.output; r.steps; r.usage.busyMs / r.usage.wallMs;
 */
export { type ChainOptions, chain } from "./chain.ts";
export {
	type Claims,
	type ClaimsReport,
	createClaims,
	parseClaimLines,
	type Release,
	type ReleaseCause,
} from "./claims.ts";
export {
	DEFAULT_MAX_DEPTH,
	type DelegateDetails,
	type DelegateParams,
	type DelegateTool,
	type DelegateToolOptions,
	type DelegateToolResult,
	delegateTool,
} from "./delegate-tool.ts";
export { type FanOutOptions, type FanOutResult, fanOut } from "./fan-out.ts";
export {
	type Answer,
	DEFAULT_MAX_QUESTIONS,
	type InterviewOptions,
	type InterviewResult,
	interview,
	parseQuestion,
} from "./interview.ts";
export { DEFAULT_MAX_ITERATIONS, type LoopOptions, type LoopResult, loop } from "./loop.ts";
export {
	DEFAULT_MAX_TASKS,
	type OrchestrateOptions,
	type OrchestrateResult,
	orchestrate,
	plannerTask,
} from "./orchestrate.ts";
export { offerBoth, type ToolOffer } from "./offer-both.ts";
export { type DroppedTask, type Plan, type PlanTask, parsePlan } from "./plan.ts";
export { type ReduceOptions, reduce, synthesisTask } from "./reduce.ts";
export { parseChoice, type RouteOptions, type RouteResult, route, routerTask } from "./route.ts";
export {
	type MemberReport,
	type SwarmMember,
	type SwarmOptions,
	type SwarmResult,
	type SwarmState,
	swarm,
} from "./swarm.ts";
export { type MemberBriefing, memberTask, type Post } from "./swarm-task.ts";
export { labelBranches, readBranches } from "./branches.ts";
export { failedBy, failure, readWorkflow, type WorkflowResult } from "./workflow-result.ts";
// The runtime a combinator is written over, re-exported so a workflow author needs one import.
export {
	type AbortFailure,
	abortFailure,
	cancelReason,
	deadline,
	stopReason,
	timeoutReason,
} from "../runtime/index.ts";
export {
	type Budget,
	type BudgetGauge,
	type BudgetSignals,
	budgetedSpawn,
	budgetGauge,
	type TurnBudget,
} from "../runtime/index.ts";
export { mapConcurrent } from "../runtime/index.ts";
export { createPool, type Held, type SubagentPool, type TurnOptions } from "../runtime/index.ts";
export { createTrail, type Trail, type WorkflowUsage } from "../runtime/index.ts";
export { safeListener, type WorkflowEvent } from "../runtime/index.ts";
export type { Lifetime, WorkflowOptions } from "../runtime/index.ts";
