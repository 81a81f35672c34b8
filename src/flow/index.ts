export * from "./ast.ts";
export { buildFlow } from "./build/index.ts";
export { type FlowEntry, findFlow, listFlows, PROJECT_TRUST, unreadProjectFlows } from "./find.ts";
export * from "./check/index.ts";
export { type FlowFile, readFlow, type Section } from "./read/index.ts";
export * from "./run/index.ts";
export * from "./types/index.ts";
