/**
 * What a `subagent` call does, loaded on the first call: refusals come back as error results with the
 * reason, never as exceptions; progress streams through `onUpdate`; the result carries the subagents' usage
 * in pi's shape, so the session's totals include what they spent; questions a flow asks go to the person
 * through pi's dialogs.
 */
import type { AgentToolResult, AgentToolUpdateCallback, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { NOBODY } from "../../engine/index.ts";
import type { PiHost } from "../../pi/index.ts";
import { dialogAsk } from "../ask-dialogs.ts";
import { hostFor } from "../host.ts";
import { projectSources, type TrustMemory } from "../trust.ts";
import type { SubagentParams } from "./params.ts";
import { piUsage } from "./progress.ts";
import { depthFromEnv, runCall, type SubagentDetails } from "./run-call.ts";

/** Runs one call of the tool. */
export async function executeSubagent(
	memory: TrustMemory,
	_toolCallId: string,
	params: SubagentParams,
	signal: AbortSignal | undefined,
	onUpdate: AgentToolUpdateCallback<SubagentDetails> | undefined,
	ctx: ExtensionContext,
	activeTools?: readonly string[],
): Promise<AgentToolResult<SubagentDetails>> {
	const scope = await projectSources(ctx, memory);
	let host: Promise<PiHost> | undefined;
	const core = {
		pi: ctx,
		scope,
		ask: ctx.hasUI ? dialogAsk(ctx.ui) : NOBODY,
		...depthFromEnv(),
		host: () => (host ??= hostFor(ctx)),
		...(activeTools ? { cap: new Set(activeTools) } : {}),
	};
	const out = await runCall(core, params, signal, (details) =>
		onUpdate?.({ content: [{ type: "text", text: progressText(details) }], details }),
	).catch(
		// A failure of ours (a host that will not open) is still an answer the model can act on.
		(error: unknown) => ({
			text: `The subagent tool failed: ${error instanceof Error ? error.message : String(error)}`,
			isError: true,
			details: { mode: "refused" as const, depth: core.depth, ok: false, rows: [] },
			usage: undefined,
		}),
	);
	return {
		content: [{ type: "text", text: out.text }],
		details: out.details,
		...(out.usage ? { usage: piUsage(out.usage) } : {}),
		...(out.isError ? { isError: true } : {}),
	};
}

/** A partial result's text, for clients that show text only (RPC, print). */
function progressText(d: SubagentDetails): string {
	const running = d.rows.filter((r) => r.state === "running");
	const ended = d.rows.length - running.length;
	return `${d.mode}: ${ended} of ${d.rows.length} turn(s) ended${running.length ? `; running ${running.map((r) => `${r.label} (${r.agent})`).join(", ")}` : ""}`;
}
