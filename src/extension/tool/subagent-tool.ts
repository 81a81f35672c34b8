/**
 * The `subagent` tool: the model delegates to pi-flows subagents (one agent, parallel tasks, a chain)
 * or runs a whole flow. Registering it costs pi's start nothing beyond this file and its parameters: the
 * code that runs a call (the roster, the combinators, the evaluator) loads on the first call
 * (subagent-execute.ts).
 */
import { readdirSync } from "node:fs";
import type { AgentToolResult, ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { definitionDirs } from "../../agents/locations.ts";
import { SUBAGENT_TOOL } from "./child-tools.ts";
import type { TrustMemory } from "../trust.ts";
import { subagentParameters } from "./params.ts";
import { renderSubagentCall, renderSubagentResult } from "./render.ts";
import type { SubagentDetails } from "./run-call.ts";

/** Registers the tool. */
export function registerSubagentTool(pi: ExtensionAPI, memory: TrustMemory): void {
	const agents = agentNames(process.cwd());
	pi.registerTool({
		name: SUBAGENT_TOOL,
		label: "Subagent",
		description: [
			"Delegate to pi-flows subagents, each a fresh pi session that sees only the task it is given:",
			'one agent ({ agent, task }), several in parallel ({ tasks: [{ agent, task }], concurrency }), steps in order ({ chain: [...] } or { chain: "@a -> @b", task }),',
			`or a whole flow ({ flow, input }). Agents: ${agents.join(", ") || "none found"} (plus the project's, when it is trusted).`,
		].join(" "),
		promptSnippet: "Delegate self-contained work to pi-flows subagents or run a pi-flows flow",
		promptGuidelines: [
			"Use the subagent tool for self-contained work that needs no more of this conversation than you can put in the task; give each subagent the whole task.",
			"Use the subagent tool's `tasks` only for independent pieces of work; use `chain` when each step needs the previous one's answer.",
		],
		parameters: subagentParameters,
		async execute(toolCallId, params, signal, onUpdate, ctx): Promise<AgentToolResult<SubagentDetails>> {
			const { executeSubagent } = await import("./subagent-execute.ts");
			// The session's active tools, as pi holds them now: no child of this call gets more.
			return executeSubagent(memory, toolCallId, params, signal, onUpdate, ctx, pi.getActiveTools());
		},
		renderCall: (args, theme) => renderSubagentCall(args, theme),
		renderResult: (result, options, theme) => renderSubagentResult(result, options, theme),
	});
}

/**
 * The shipped and user agents' names, for the description, without parsing them: an agent's file name is
 * its name (the roster refuses a `name:` that differs), so listing the folders is enough and costs no YAML
 * at pi's start. A broken file is still named here; the call then reports why it cannot run.
 */
function agentNames(cwd: string): string[] {
	const names = new Set<string>();
	for (const { dir } of definitionDirs("agents", cwd)) {
		let entries: string[];
		try {
			entries = readdirSync(dir);
		} catch {
			// No folder, no agents from it: the common case for the user's folder.
			continue;
		}
		for (const file of entries) if (file.endsWith(".md")) names.add(file.slice(0, -3));
	}
	return [...names].sort();
}
