export { type BuildResult, buildFlow, type ChainExpander } from "./build.ts";
export { ADDRESS_WORDS, FLOW_KEYS, ID_PATTERN, RESERVED_WORDS, THINKING_LEVELS } from "./words.ts";
