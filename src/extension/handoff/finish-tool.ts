/**
 * `finish`: the last action of a task. It writes HANDOFF.md and returns `terminate: true`, so pi makes no
 * further model call: the session ends on the document, not on a victory lap.
 *
 *   finish({ status: "partial", summary: "Parser done.", next_task: "Write the checker …" })
 *   → HANDOFF.md written, run over; details { path, status, hasNext }
 */
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
	FINISH_CONTRACT,
	HANDOFF_RESULTS,
	type HandoffDocument,
	type HandoffToolArguments,
	isChainEnd,
	type WriteHandoffResult,
} from "../../handoff/index.ts";
import { documentFrom, toolParameters } from "./document-params.ts";

const FinishParameters = toolParameters<HandoffToolArguments & { status: "done" | "partial" | "blocked" }>(
	FINISH_CONTRACT,
);

/** What the tool reports back besides its text. */
export interface FinishDetails {
	path?: string;
	status?: HandoffDocument["status"];
	hasNext?: boolean;
	archivedTo?: string;
	refused?: "switched-off" | "not-alone" | "write-failed";
}

/** What `finish` needs from the session around it. */
export interface FinishToolDeps {
	isEnabled: () => boolean;
	write: (cwd: string, doc: HandoffDocument) => Promise<WriteHandoffResult>;
	now: () => Date;
	/** Called once the document is on disk: a pending reset and the watermark must not outlive it. */
	onFinished: (ctx: ExtensionContext) => void;
	notify: (ctx: ExtensionContext, text: string) => void;
}

/** Builds the tool. */
export function createFinishTool(deps: FinishToolDeps): ToolDefinition<typeof FinishParameters, FinishDetails> {
	return {
		name: FINISH_CONTRACT.name,
		label: FINISH_CONTRACT.label,
		description: FINISH_CONTRACT.description,
		promptSnippet: "finish: end the task by writing HANDOFF.md; the session stops right after",
		promptGuidelines: [
			"Call `finish` as the final action of a task instead of writing a closing summary in chat; call it alone, not next to other tool calls.",
			"Before `finish`, make sure every artifact you list exists on disk.",
			"`finish` next_task must stand on its own: the next agent starts with no memory of this session.",
			"If you cannot go on without a human, call `finish` with status blocked and say why; never claim completion you have not checked.",
		],
		parameters: FinishParameters,
		async execute(toolCallId, params, _signal, _onUpdate, ctx) {
			const refuse = (text: string, refused: FinishDetails["refused"]) => ({
				content: [{ type: "text" as const, text }],
				details: { refused },
				isError: true,
			});
			if (!deps.isEnabled()) return refuse(HANDOFF_RESULTS.switchedOff, "switched-off");
			// pi stops only when every result of a batch terminates; beside another call, finish could not end the run.
			if (callsInSameMessage(ctx, toolCallId) > 1) {
				return refuse(HANDOFF_RESULTS.finishNotAlone, "not-alone");
			}
			const doc = documentFrom(params, params.status, "finish", ctx, deps.now());
			const written = await deps.write(ctx.cwd, doc);
			if (!written.ok) return refuse(HANDOFF_RESULTS.finishNotSaved(written.message), "write-failed");
			deps.onFinished(ctx);
			const hasNext = !isChainEnd(doc);
			// /next exists only in an interactive session; headless, the next step is another process.
			const onward = ctx.hasUI
				? "Run /next to start the next task in a fresh session."
				: "Start the next task in a fresh process (for example `pi-flows drive`), or /next in an interactive pi.";
			deps.notify(ctx, `Handoff written (${doc.status}). ${hasNext ? onward : "The chain ends here."}`);
			return {
				content: [{ type: "text", text: HANDOFF_RESULTS.finished(doc.status) }],
				details: {
					path: written.path,
					status: doc.status,
					hasNext,
					...(written.archivedTo ? { archivedTo: written.archivedTo } : {}),
				},
				terminate: true,
			};
		},
	};
}

/** How many tool calls the assistant message holding this call made (1 when it cannot be found). */
function callsInSameMessage(ctx: ExtensionContext, toolCallId: string): number {
	const branch = ctx.sessionManager.getBranch();
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i];
		if (entry.type !== "message" || entry.message.role !== "assistant") continue;
		const calls = entry.message.content.filter((block) => block.type === "toolCall");
		if (calls.some((call) => call.id === toolCallId)) return calls.length;
	}
	return 1;
}
