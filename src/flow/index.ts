export type { Address, AgentNode, Flow, FlowNode, Located } from "./ast.ts";
export { buildFlow } from "./build/index.ts";
export { type FlowEntry, findFlow, listFlows } from "./catalogue.ts";
export { type CheckedFlow, checkFlow } from "./check/index.ts";
export { checkFlowFile, checkFlowText } from "./load.ts";
export { type FlowFile, readFlow, type Section } from "./read/index.ts";
export * from "./run/index.ts";
