/**
 * The chain reader's only door: `parseChain` turns `@a -> @b --model p/m` into a {@link ChainSpec} or
 * faults, `formatChain` prints one back. Nothing outside src/chain imports past this file.
 */
export { CHAIN_FLAGS, type FlagScope, type FlagSpec } from "./flags.ts";
export { formatDuration, parseDuration } from "./duration.ts";
export { formatChain } from "./format.ts";
export { type ParsedChain, parseChain } from "./parse.ts";
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
