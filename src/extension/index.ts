/**
 * The pi extension: what pi-flows adds to a pi session: `/run`, `/step` and `/flows`, the `subagent`
 * tool, the messages they post, and the handoff protocol. Its wiring may import pi's types; everything it
 * runs goes through the same core as the CLI.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { registerFlowsCommand } from "./flows-command.ts";
import { registerHandoff } from "./handoff/index.ts";
import { registerMessages } from "./messages.ts";
import { registerRunCommand } from "./run-command.ts";
import { registerStepCommand } from "./step-command.ts";
import { registerSubagentTool } from "./tool/subagent-tool.ts";
import type { TrustMemory } from "./trust.ts";

/** pi calls this once per session with its extension API. */
export default function piFlows(pi: ExtensionAPI): void {
	// One trust decision per project for this pi process, shared by every command and the tool.
	const trust: TrustMemory = new Map();
	registerMessages(pi);
	registerFlowsCommand(pi, trust);
	registerRunCommand(pi, trust);
	registerStepCommand(pi, trust);
	registerSubagentTool(pi, trust);
	registerHandoff(pi);
}
