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
import { Type } from "typebox";
import {
	HANDOFF_STATUSES,
	type HandoffDocument,
	RESET_MODES,
	type ResetMode,
	type WriteHandoffResult,
} from "../../handoff/index.ts";
import { documentFrom, documentParameters, stringChoice } from "./document-params.ts";
import type { ArmRefusal, ResetEngine } from "./reset-engine.ts";

const CheckpointParameters = Type.Object({
	status: Type.Optional(
		stringChoice(HANDOFF_STATUSES, "Where the task stands; in-progress (the default) for a save along the way."),
	),
	...documentParameters({
		summary: "Progress so far: what is done and verified.",
		next_task: "If this session ended now, what should the next agent do? Written for someone with no memory of it.",
	}),
	reset: Type.Optional(
		stringChoice(
			RESET_MODES,
			"compact (the usual default): replace this conversation with the document and keep going. session: continue in a brand-new session seeded with it. none: only save the file.",
		),
	),
});

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

const SKIPPED_TEXT = {
	headless: "No reset in a headless run (each run is already a fresh context); keep working.",
	breaker: "Automatic resets are used up for this task, so the context stays as it is; keep working.",
	busy: "A reset is already under way, so this checkpoint only saved the file; keep working.",
} as const satisfies Record<ArmRefusal, string>;

/** Builds the tool. */
export function createCheckpointTool(
	deps: CheckpointToolDeps,
): ToolDefinition<typeof CheckpointParameters, CheckpointDetails> {
	return {
		name: "checkpoint",
		label: "Checkpoint",
		description:
			"Save progress to HANDOFF.md at a milestone and, by default, reset the context to that document so you continue from it. Does not end the task.",
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
					content: [{ type: "text", text: "The handoff protocol is switched off; nothing was written." }],
					details: { refused: "switched-off" },
					isError: true,
				};
			}
			const status = params.status ?? "in-progress";
			const doc = documentFrom(params, status, "checkpoint", ctx, deps.now());
			const written = await deps.write(ctx.cwd, doc);
			if (!written.ok) {
				return {
					content: [{ type: "text", text: `HANDOFF.md was not written: ${written.message}` }],
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
					content: [{ type: "text", text: "Checkpoint saved to HANDOFF.md. Keep working." }],
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
				const text = `Checkpoint saved to HANDOFF.md. ${SKIPPED_TEXT[armed.reason]}`;
				return { content: [{ type: "text", text }], details: { ...base, armed: false, skipped: armed.reason } };
			}
			const what =
				reset === "compact"
					? "this conversation will be replaced by it"
					: "work continues in a new session seeded with it";
			return {
				content: [
					{ type: "text", text: `Checkpoint saved to HANDOFF.md; ${what}. Stop here and wait for the resume message.` },
				],
				details: { ...base, armed: true },
				terminate: true,
			};
		},
	};
}
