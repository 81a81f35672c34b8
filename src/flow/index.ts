export * from "./ast.ts";
export { buildFlow } from "./build/index.ts";
export { type FlowEntry, findFlow, listFlows, PROJECT_TRUST, unreadProjectFlows } from "./catalogue.ts";
export * from "./check/index.ts";
export { hasSection, KINDS, kindOf, NODE_KINDS } from "./kinds/index.ts";
export { catalogueOptions, checkFlowFile, checkFlowText, type Judged, type LoadOptions } from "./load.ts";
export { type FlowFile, readFlow, type Section } from "./read/index.ts";
export * from "./run/index.ts";
export * from "./types/index.ts";
