/**
 * The `subagent` tool: the model delegates to pi-flows subagents (one agent, parallel tasks, a chain)
 * or runs a whole flow. Refusals come back as error results with the reason, never as exceptions;
 * progress streams through `onUpdate`; the result carries the subagents' usage in pi's shape, so the
 * session's totals include what they spent; questions a flow asks go to the person through pi's dialogs.
 */
import type { AgentToolResult, ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { loadRoster } from "../../agents/index.ts";
import { NOBODY } from "../../flow/index.ts";
import type { PiHost } from "../../pi/index.ts";
import { dialogAsk } from "../ask-dialogs.ts";
import { hostFor } from "../host.ts";
import { SUBAGENT_TOOL } from "../launch/child-tools.ts";
import { projectScope, type TrustMemory } from "../trust.ts";
import { subagentParameters } from "./params.ts";
import { piUsage } from "./progress.ts";
import { renderSubagentCall, renderSubagentResult } from "./render.ts";
import { depthFromEnv, runCall, type SubagentDetails } from "./run-call.ts";

/** Registers the tool. */
export function registerSubagentTool(pi: ExtensionAPI, memory: TrustMemory): void {
	const agents = loadRoster(process.cwd()).names();
	pi.registerTool({
		name: SUBAGENT_TOOL,
		label: "Subagent",
		description: [
			"Delegate to pi-flows subagents, each a fresh pi session that sees only the task it is given:",
			"one agent ({ agent, task }), several in parallel ({ tasks: [{ agent, task }], concurrency }), steps in order ({ chain: [...] } or { chain: \"@a -> @b\", task }),",
			`or a whole flow ({ flow, input }). Agents: ${agents.join(", ") || "none found"} (plus the project's, when it is trusted).`,
		].join(" "),
		promptSnippet: "Delegate self-contained work to pi-flows subagents or run a pi-flows flow",
		promptGuidelines: [
			"Use the subagent tool for self-contained work that needs no more of this conversation than you can put in the task; give each subagent the whole task.",
			"Use the subagent tool's `tasks` only for independent pieces of work; use `chain` when each step needs the previous one's answer.",
		],
		parameters: subagentParameters,
		async execute(_toolCallId, params, signal, onUpdate, ctx): Promise<AgentToolResult<SubagentDetails>> {
			const scope = await projectScope(ctx, memory);
			let host: Promise<PiHost> | undefined;
			const core = {
				pi: ctx,
				scope,
				ask: ctx.hasUI ? dialogAsk(ctx.ui) : NOBODY,
				...depthFromEnv(),
				host: () => (host ??= hostFor(ctx)),
			};
			const out = await runCall(core, params, signal, (details) => onUpdate?.({ content: [{ type: "text", text: progressText(details) }], details })).catch(
				// A failure of ours (a host that will not open) is still an answer the model can act on.
				(error: unknown) => ({ text: `The subagent tool failed: ${error instanceof Error ? error.message : String(error)}`, isError: true, details: { mode: "refused" as const, depth: core.depth, ok: false, rows: [] }, usage: undefined }),
			);
			return {
				content: [{ type: "text", text: out.text }],
				details: out.details,
				...(out.usage ? { usage: piUsage(out.usage) } : {}),
				...(out.isError ? { isError: true } : {}),
			};
		},
		renderCall: (args, theme) => renderSubagentCall(args, theme),
		renderResult: (result, options, theme) => renderSubagentResult(result, options, theme),
	});
}

/** A partial result's text, for clients that show text only (RPC, print). */
function progressText(d: SubagentDetails): string {
	const running = d.rows.filter((r) => r.state === "running");
	const ended = d.rows.length - running.length;
	return `${d.mode}: ${ended} of ${d.rows.length} turn(s) ended${running.length ? `; running ${running.map((r) => `${r.label} (${r.agent})`).join(", ")}` : ""}`;
}
