/**
 * `checkpoint`: a save and a restart. It writes HANDOFF.md like `finish` but does not end the task; with
 * `reset` compact or session it also arms the reset engine, which swaps the context for the document at
 * the turn's end. An armed checkpoint returns `terminate: true`, so no model call is spent in the context
 * that is about to be dropped.
 *
 *   checkpoint({ summary: "Lexer done.", next_task: "Parser next.", reset: "compact" })
 *   → HANDOFF.md written; at turn_end the context becomes the document; a resume message restarts the agent
 */
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
	checkpointContract,
	HANDOFF_RESULTS,
	type HandoffDocument,
	type HandoffToolArguments,
	type ResetMode,
	type WriteHandoffResult,
} from "../../handoff/index.ts";
import { documentFrom, toolParameters } from "./document-params.ts";
import type { ArmRefusal, ResetEngine } from "./reset-engine.ts";

// The schema is the same whatever the default reset; only the description names it.
const CheckpointParameters = toolParameters<HandoffToolArguments>(checkpointContract("compact"));

/** What the tool reports back besides its text. */
export interface CheckpointDetails {
	path?: string;
	status?: HandoffDocument["status"];
	reset?: ResetMode;
	/** True when a reset will happen at the end of this turn. */
	armed?: boolean;
	/** Why a requested reset will not happen. */
	skipped?: ArmRefusal;
	archivedTo?: string;
	refused?: "switched-off" | "write-failed";
}

/** What `checkpoint` needs from the session around it. */
export interface CheckpointToolDeps {
	isEnabled: () => boolean;
	write: (cwd: string, doc: HandoffDocument) => Promise<WriteHandoffResult>;
	now: () => Date;
	/** The reset used when the call names none (HANDOFF_CHECKPOINT_RESET, else compact). */
	defaultReset: () => ResetMode;
	engine: Pick<ResetEngine, "arm" | "resets">;
	maxResets: () => number;
	notify: (ctx: ExtensionContext, text: string, level?: "info" | "warning") => void;
}

/** Builds the tool. */
export function createCheckpointTool(
	deps: CheckpointToolDeps,
): ToolDefinition<typeof CheckpointParameters, CheckpointDetails> {
	return {
		name: "checkpoint",
		label: "Checkpoint",
		description: checkpointContract(deps.defaultReset()).description,
		promptSnippet: "checkpoint: save progress to HANDOFF.md and restart from it (a save point, not the end)",
		promptGuidelines: [
			"On tasks longer than about ten tool calls, call `checkpoint` after each milestone and before risky operations.",
			"After a `checkpoint` reset, trust HANDOFF.md over what you remember; read files again before changing them.",
			"Use `checkpoint` with reset none only for a quick save in the middle of a thought.",
		],
		parameters: CheckpointParameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			if (!deps.isEnabled()) {
				return {
					content: [{ type: "text", text: HANDOFF_RESULTS.switchedOff }],
					details: { refused: "switched-off" },
					isError: true,
				};
			}
			const status = params.status ?? "in-progress";
			const doc = documentFrom(params, status, "checkpoint", ctx, deps.now());
			const written = await deps.write(ctx.cwd, doc);
			if (!written.ok) {
				return {
					content: [{ type: "text", text: HANDOFF_RESULTS.checkpointNotSaved(written.message) }],
					details: { refused: "write-failed" },
					isError: true,
				};
			}
			const reset = params.reset ?? deps.defaultReset();
			const base = {
				path: written.path,
				status,
				reset,
				...(written.archivedTo ? { archivedTo: written.archivedTo } : {}),
			};
			if (reset === "none") {
				return {
					content: [{ type: "text", text: HANDOFF_RESULTS.saved }],
					details: { ...base, armed: false },
				};
			}
			const armed = deps.engine.arm(reset, doc, ctx);
			if (!armed.armed) {
				if (armed.reason === "breaker") {
					deps.notify(
						ctx,
						`Handoff: ${deps.engine.resets} of ${deps.maxResets()} automatic resets used; checkpoints now only save the file.`,
						"warning",
					);
				}
				const text = HANDOFF_RESULTS.notReset[armed.reason];
				return { content: [{ type: "text", text }], details: { ...base, armed: false, skipped: armed.reason } };
			}
			return {
				content: [{ type: "text", text: HANDOFF_RESULTS.resetting }],
				details: { ...base, armed: true },
				terminate: true,
			};
		},
	};
}
