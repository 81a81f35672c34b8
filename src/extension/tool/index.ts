/** The `subagent` tool's door, for the extension's other parts. */
export { agentIn } from "./plan.ts";
export { runChildTools } from "./run-call.ts";
export { registerSubagentTool } from "./subagent-tool.ts";
export { SUBAGENT_TOOL, withChildTools } from "./child-tools.ts";
