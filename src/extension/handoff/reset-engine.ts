/**
 * The reset engine: turns a checkpoint into a real context reset, in the order pi allows.
 *
 *   checkpoint.execute ── arm(mode, doc) ──► armed
 *   turn_end ── compact ──► compacting: ctx.compact(); session_before_compact answers with the document
 *            │               (no model call); when compaction is over and pi is idle, a resume message
 *            │               restarts the agent
 *            └─ session ──► awaiting-settle ── agent_settled ──► cutting: "/cut" is dispatched, because
 *                            only a command context can start a new session; /cut takes the document
 *
 * Never from inside `execute`: `ctx.compact()` aborts the run and would take the tool's own result with
 * it. A compact reset keeps nothing of the old conversation (pi's recent-entry tail included: measured,
 * keeping it left about 21k of 30k tokens in context), and when pi cannot compact at all (a session under
 * its keep-recent size: "Nothing to compact") the reset goes on as a session cut, and says so. The
 * breaker counts attempts, and the count rides into a session started by /cut, so an agent that
 * checkpoints every turn stops ping-ponging after `HANDOFF_MAX_RESETS` resets even across sessions.
 */
import type {
	CompactionResult,
	ExtensionAPI,
	ExtensionContext,
	SessionBeforeCompactEvent,
	SessionBeforeCompactResult,
	TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import { type HandoffDocument, handoffAsContext, type ResetOutcome, resumeText } from "../../handoff/index.ts";
import { HANDOFF_TYPES, report } from "./runtime.ts";

/** The resets a checkpoint can ask for that actually reset something. */
export type ActiveReset = "compact" | "session";

/** Where the engine is; `armed` until turn_end, then one of the firing phases until the reset is done. */
export type ResetPhase =
	| { name: "idle" }
	| { name: "armed"; mode: ActiveReset; doc: HandoffDocument }
	| { name: "compacting"; doc: HandoffDocument; summary: string }
	| { name: "awaiting-settle"; doc: HandoffDocument }
	| { name: "cutting"; doc: HandoffDocument };

/** Why a checkpoint did not arm a reset. */
export type ArmRefusal = "headless" | "breaker" | "busy";

/** What the engine needs from the session around it. */
export interface ResetEngineDeps {
	pi: ExtensionAPI;
	maxResets: () => number;
	/** How long a resume may wait for pi to become idle before giving up with a warning. Default: 30 s. */
	idleTimeoutMs?: number;
}

/** The engine of one session. */
export interface ResetEngine {
	readonly phase: ResetPhase["name"];
	/** Automatic resets attempted for this task, including ones carried over by /cut. */
	readonly resets: number;
	arm(
		mode: ActiveReset,
		doc: HandoffDocument,
		ctx: ExtensionContext,
	): { armed: true } | { armed: false; reason: ArmRefusal };
	/** A finish or the switch going off cancels a reset that has not fired yet. */
	disarm(): void;
	/** Fires an armed reset; true when it did, so the watermark stays quiet on that turn. */
	onTurnEnd(event: TurnEndEvent, ctx: ExtensionContext): boolean;
	onAgentSettled(ctx: ExtensionContext): void;
	onBeforeCompact(event: SessionBeforeCompactEvent): SessionBeforeCompactResult | undefined;
	/** The document of an automatic /cut, taken once; undefined when /cut was typed by a human. */
	takeCut(): HandoffDocument | undefined;
	/** Restores the count a /cut carried into this session. */
	onSessionStart(ctx: ExtensionContext): void;
	/** Stops pending waits; the session is going away. */
	dispose(): void;
}

/** Only the interactive modes reset; in print/json each process is already its own context. */
export function canResetIn(ctx: ExtensionContext): boolean {
	return ctx.mode === "tui" || ctx.mode === "rpc";
}

/** Builds the engine for one session. */
export function createResetEngine(deps: ResetEngineDeps): ResetEngine {
	const { pi } = deps;
	const idleTimeoutMs = deps.idleTimeoutMs ?? 30_000;
	let phase: ResetPhase = { name: "idle" };
	let resets = 0;
	let disposed = false;
	const waiters = new Set<() => boolean>();

	/**
	 * Runs `action` once pi is idle: at once if it is, else on the next settle or idle check. pi refuses a
	 * prompt while compaction is still winding down, and there is no "compaction over" event to wait on.
	 */
	const whenIdle = (ctx: ExtensionContext, what: string, action: () => void) => {
		const deadline = Date.now() + idleTimeoutMs;
		let timer: ReturnType<typeof setInterval> | undefined;
		const tryNow = () => {
			if (disposed) return true;
			if (ctx.isIdle()) action();
			else if (Date.now() > deadline)
				report(
					ctx,
					`Handoff: pi did not become idle within ${idleTimeoutMs / 1000}s; ${what} was not sent.`,
					"warning",
				);
			else return false;
			return true;
		};
		if (tryNow()) return;
		const waiter = () => {
			const done = tryNow();
			if (done) {
				clearInterval(timer);
				waiters.delete(waiter);
			}
			return done;
		};
		waiters.add(waiter);
		timer = setInterval(waiter, 50);
	};

	const afterCompaction = (ctx: ExtensionContext, outcome: ResetOutcome | "cancelled") => {
		if (phase.name !== "compacting") return;
		const { doc } = phase;
		phase = { name: "idle" };
		if (outcome !== "cancelled" && outcome.kind === "failed" && CANNOT_COMPACT.test(outcome.reason)) {
			// pi will not compact this session, so an in-place reset is impossible: cut to a fresh session
			// seeded with the document instead, which is the reset the checkpoint asked for.
			const text = `Handoff: pi cannot compact this session (${outcome.reason}); the checkpoint reset continues in a fresh session seeded with HANDOFF.md.`;
			report(ctx, text, "warning");
			phase = { name: "cutting", doc };
			whenIdle(ctx, "the /cut command", () => pi.sendUserMessage("/cut", { expandPromptTemplates: true }));
			return;
		}
		if (outcome === "cancelled") {
			report(
				ctx,
				"Handoff: the context reset was cancelled. HANDOFF.md is saved; send a message to continue.",
				"warning",
			);
			return;
		}
		if (outcome.kind !== "reset") {
			report(
				ctx,
				`Handoff: ${outcome.kind === "failed" ? `reset failed (${outcome.reason})` : "another extension's summary replaced the checkpoint"}; the agent resumes with the document.`,
				"warning",
			);
		}
		whenIdle(ctx, "the resume message", () =>
			pi.sendMessage(
				{ customType: HANDOFF_TYPES.resume, content: resumeText(outcome), display: true },
				{ triggerTurn: true },
			),
		);
	};

	return {
		get phase() {
			return phase.name;
		},
		get resets() {
			return resets;
		},
		arm(mode, doc, ctx) {
			if (!canResetIn(ctx)) return { armed: false, reason: "headless" };
			if (resets >= deps.maxResets()) return { armed: false, reason: "breaker" };
			// A later checkpoint in the same batch replaces an armed one; a reset already firing is left alone.
			if (phase.name !== "idle" && phase.name !== "armed") return { armed: false, reason: "busy" };
			phase = { name: "armed", mode, doc };
			return { armed: true };
		},
		disarm() {
			if (phase.name === "armed") phase = { name: "idle" };
		},
		onTurnEnd(event, ctx) {
			if (phase.name !== "armed") return false;
			const { mode, doc } = phase;
			resets++;
			if (mode === "session") {
				phase = { name: "awaiting-settle", doc };
				// A checkpoint alone in its batch already ended the run (terminate); anything else would keep
				// the model working in the context it asked to leave.
				if (!onlyHandoffCalls(event)) ctx.abort();
				return true;
			}
			const summary = handoffAsContext(doc, "compact");
			phase = { name: "compacting", doc, summary };
			ctx.compact({
				customInstructions: "pi-flows handoff reset",
				onComplete: (result: CompactionResult) =>
					afterCompaction(ctx, result.summary === summary ? { kind: "reset" } : { kind: "replaced", doc }),
				onError: (error: Error) =>
					afterCompaction(ctx, /cancel/i.test(error.message) ? "cancelled" : { kind: "failed", reason: error.message }),
			});
			return true;
		},
		onAgentSettled(ctx) {
			for (const waiter of [...waiters]) waiter();
			if (phase.name !== "awaiting-settle") return;
			phase = { name: "cutting", doc: phase.doc };
			// Dispatched as a command so it runs with a command context, the only one that has newSession.
			whenIdle(ctx, "the /cut command", () => pi.sendUserMessage("/cut", { expandPromptTemplates: true }));
		},
		onBeforeCompact(event) {
			// Only the compaction this engine started; a human's /compact or pi's own threshold run is left alone.
			if (phase.name !== "compacting" || event.reason !== "manual") return undefined;
			const { preparation } = event;
			return {
				compaction: {
					summary: phase.summary,
					// An id no entry has: pi then keeps none of the old conversation, not even its recent tail,
					// so the next request holds the document and what follows it, nothing else.
					firstKeptEntryId: KEEP_NOTHING,
					tokensBefore: preparation.tokensBefore,
					details: { source: "HANDOFF.md", by: "pi-flows handoff" },
				},
			};
		},
		takeCut() {
			if (phase.name !== "cutting") return undefined;
			const { doc } = phase;
			phase = { name: "idle" };
			return doc;
		},
		onSessionStart(ctx) {
			phase = { name: "idle" };
			resets = carriedResets(ctx);
		},
		dispose() {
			disposed = true;
			for (const waiter of [...waiters]) waiter();
		},
	};
}

/** pi's compaction errors that mean "this session cannot be compacted", not a fault to report as one. */
const CANNOT_COMPACT = /nothing to compact|already compacted/i;

/** The `firstKeptEntryId` of a reset: matches no entry, so nothing before the compaction stays in context. */
export const KEEP_NOTHING = "pi-flows-handoff-reset-keeps-nothing";

function onlyHandoffCalls(event: TurnEndEvent): boolean {
	const { message } = event;
	if (message.role !== "assistant") return false;
	return message.content.every((block) => block.type !== "toolCall" || block.name === "checkpoint");
}

/** The reset count a /cut wrote into the new session's first entries. */
function carriedResets(ctx: ExtensionContext): number {
	for (const entry of [...ctx.sessionManager.getBranch()].reverse()) {
		if (entry.type !== "custom" || entry.customType !== HANDOFF_TYPES.state) continue;
		const data = entry.data as { resets?: unknown } | undefined;
		return typeof data?.resets === "number" && Number.isSafeInteger(data.resets) && data.resets >= 0 ? data.resets : 0;
	}
	return 0;
}
