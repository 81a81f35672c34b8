/**
 * The pi extension: what pi-flows adds to a pi session. Its wiring may import pi's types; everything it
 * does goes through the same core as the CLI.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { registerFlowsCommand } from "./flows-command.ts";
import { registerHandoff } from "./handoff/index.ts";

/** pi calls this once per session with its extension API. */
export default function piFlows(pi: ExtensionAPI): void {
	registerFlowsCommand(pi);
	registerHandoff(pi);
}
