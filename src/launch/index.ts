/**
 * The launch door: what the `pi-flows` command line and pi's `/run`, `/step` and `subagent` tool share
 * before a run starts (the input read against the flow's type, a typed chain judged as a flow with its
 * faults on the chain as typed, and the one preparation of a checked flow: its script, run stage, host,
 * models, budget and chain options; and a run folder made ready to resume), so the surfaces cannot judge
 * one request differently. No pi here: a surface passes in how it opens its host, and words refusals
 * (positioned faults) its own way.
 */
export {
	CHAIN_FILE,
	type ChainFlow,
	type ChainRequest,
	chainAsFlow,
	type JudgedChain,
	judgeChain,
	placeOnChain,
} from "./chain.ts";
export { type InputWords, readInput } from "./input.ts";
export { readScriptFile, type ScriptFile } from "./script.ts";
export { chainRunOptions } from "./run-options.ts";
export { readTransportFlags } from "./transport-flags.ts";
export {
	type Launch,
	type LaunchRunOptions,
	type LaunchSettings,
	type LaunchStage,
	prepareLaunch,
	readLaunchScript,
} from "./prepare.ts";
export type { RunFlags } from "./flags.ts";
export { type PlanOptions, planFlow } from "./plan.ts";
export { prepareResume, type ResumePrep, type ResumeSettings } from "./resume.ts";
