/**
 * pi-flows as a library: `import { chain, openHost, loadRoster } from "pi-flows"`. This file is the whole
 * public door and is curated: what a program needs to write a workflow a flow file cannot say (the
 * combinators and their types), to get a real spawn (a host on pi, the roster of agents), and to load,
 * check and run a flow file the way the CLI does. Everything else is internal and may change.
 *
 *   const host = await openHost({ cwd });                    // pi's models, credentials and sessions
 *   const roster = loadRoster(cwd);                          // shipped < user (< project, when asked)
 *   const r = await chain({ steps: [roster.get("scout")!, roster.get("reviewer")!], input, cwd, spawn: host.spawn });
 */

// Workflows: the combinators, the pool and the trail they run on, their results and events.
import type { Sources } from "./agents/index.ts";
export * from "./combinators/index.ts";
export type { ErrorKind, Result } from "./runtime/index.ts";
export { FAILURE_KIND_TABLE, FAILURE_KINDS, type Failure, type FailureKind } from "./runtime/index.ts";
export type { Usage } from "./runtime/index.ts";
export type { Spawn, SpawnRequest, Subagent } from "./runtime/index.ts";

// A real spawn: pi as the host, the agents that can play turns, the scripted model for offline runs.
export { type HostOptions, openHost, type PiHost, type ResolvedModel } from "./pi/index.ts";
export { readScript, type Script } from "./script/index.ts";
export { type AgentDef, agentDir, loadRoster, type Roster, type Sources } from "./agents/index.ts";
/** @deprecated The sources a roster reads are {@link Sources}; kept so code written against 0.x still compiles. */
export type Scope = Sources;

// Flow files: find, check (every fault at once, with positions), resolve models, run.
export type { CheckedFlow } from "./language/index.ts";
export { findFlow, listFlows } from "./load/index.ts";
export { type FlowResult, type NodeModel, resolveModels, type RunOptions } from "./engine/index.ts";
export { runFlow } from "./kinds/run.ts";
export { catalogueOptions, checkFlowFile, checkFlowText, type LoadOptions } from "./load/index.ts";

// Reuse across runs: `runFlow(flow, input, { reuse: reuseFromFolder(runDir).source })` takes every visit an
// earlier run already played unchanged instead of playing it; `planReuse` says which, before a token is spent.
export type { ReuseSource } from "./engine/index.ts";
export type { VisitIdentity } from "./identity/index.ts";
export { planReuse, type ReusePlan, type ReusePlanRow, reuseFromFolder, reuseSource } from "./reuse/index.ts";
export type { Fault } from "./faults/index.ts";

// Traces: startRun and resumeRun trace through the global OpenTelemetry API; a bare runFlow attaches one.
export { type RunTrace, type TraceRunOptions, traceRun } from "./telemetry/index.ts";
