/**
 * The `subagent` tool: the model delegates to pi-flows subagents (one agent, parallel tasks, a chain)
 * or runs a whole flow. Registering it costs pi's start nothing beyond this file and its parameters: the
 * code that runs a call (the roster, the combinators, the evaluator) loads on the first call
 * (subagent-execute.ts).
 */
import type { AgentToolResult, ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { agentNamesIn } from "../../agents/roster-files.ts";
import { SUBAGENT_TOOL } from "./child-tools.ts";
import type { TrustMemory } from "../trust.ts";
import { subagentParameters } from "./params.ts";
import { renderSubagentCall, renderSubagentResult } from "./render.ts";
import type { SubagentDetails } from "./run-call.ts";

/** Registers the tool. */
export function registerSubagentTool(pi: ExtensionAPI, memory: TrustMemory): void {
	// Without parsing them: each file's `name:` line (Claude Code's and pi-subagents' files may be named
	// otherwise) costs no YAML at pi's start. A broken file is still named; the call then says why it cannot run.
	const agents = listed(agentNamesIn(process.cwd(), {}).map((a) => a.name));
	pi.registerTool({
		name: SUBAGENT_TOOL,
		label: "Subagent",
		description: [
			"Delegate to pi-flows subagents, each a fresh pi session that sees only the task it is given:",
			'one agent ({ agent, task }), several in parallel ({ tasks: [{ agent, task }], concurrency }), steps in order ({ chain: [...] } or { chain: "@a -> @b", task }),',
			`or a whole flow ({ flow, input }). Agents: ${agents || "none found"} (plus the project's, when it is trusted).`,
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

/** The most agent names the description lists: a person with a Claude Code collection installed has hundreds. */
const LISTED = 40;

/** The names, or the first {@link LISTED} and how many more: every session pays for the description in tokens. */
function listed(names: readonly string[]): string {
	if (names.length <= LISTED) return names.join(", ");
	return `${names.slice(0, LISTED).join(", ")} and ${names.length - LISTED} more (a call naming one is checked against all)`;
}
