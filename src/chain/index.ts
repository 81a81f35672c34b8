/**
 * The chain reader's only door: `parseChain` turns `@a -> @b --model p/m` into a {@link ChainSpec} or
 * faults, `formatChain` prints one back. Nothing outside src/chain imports past this file.
 */
export { chainExpander } from "./expander.ts";
export { chainHandoffs, DEFAULT_MAX_HISTORY, type HandoffSummary, render as renderSummary } from "./handoffs.ts";
export { treeChanges, treeState } from "./tree.ts";
export { expandTemplate, findTemplate, type Template } from "./templates.ts";
export { chainToNodes } from "./to-flow.ts";
export { CHAIN_FLAGS, type FlagPlace, type FlagScope, type FlagSpec, flagNames } from "./flags.ts";
export { formatDuration, MAX_DURATION_MS, parseDuration } from "./duration.ts";
export { formatChain } from "./format.ts";
export { type ParsedChain, parseChain, withGlobals } from "./parse.ts";
export {
	type ChainGlobals,
	type ChainModel,
	type ChainRef,
	type ChainSource,
	type ChainSpec,
	type ChainStep,
	DEFAULT_GOAL_AGENT,
	type ParseChainOptions,
	THINKING_ALIASES,
	THINKING_LEVELS,
	type ThinkingLevel,
} from "./types.ts";
export { chainMdToFlow, isChainMd, placeInChainFile } from "./chain-md.ts";
export { CHAIN_CLI_FLAGS } from "./cli-flags.ts";
