export { type BuildResult, buildFlow, type ChainExpander } from "./build.ts";
export {
	ADDRESS_WORDS,
	FLOW_KEYS,
	ID_PATTERN,
	KIND_KEYS,
	NODE_KEYS,
	RESERVED_WORDS,
	THINKING_LEVELS,
} from "./words.ts";
