/**
 * The handoff protocol inside flows: every turn a flow runs is offered `finish` (terminal: the turn ends
 * on the call, with no victory-lap tokens) and `checkpoint` (a save; with a reset, the node goes on in a
 * fresh session seeded with the document). The document is the handoff of `../../handoff/`, the same one
 * interactive sessions write, and later nodes read it as `<node>.handoff`.
 */
import {
	checkpointContract,
	checkpointStatus,
	documentFromArguments,
	FINISH_CONTRACT,
	HANDOFF_DEFAULTS,
	HANDOFF_RESULTS,
	type HandoffDocument,
	type HandoffStatus,
	handoffAsContext,
	renderHandoff,
} from "../handoff/index.ts";
import type { ToolSpec } from "../runtime/index.ts";
import type { Value } from "../language/types/index.ts";

/** What a turn's handoff tools captured. */
export interface HandoffCapture {
	doc?: HandoffDocument;
	/** How the node goes on after a checkpoint: in a fresh session seeded with the document, or not at all. */
	reset?: "compact" | "session" | "none";
}

/**
 * Where a turn's documents go the moment a tool writes them, before the tool returns: the driver's
 * HANDOFF.md, a run's journal. A reason comes back when it could not be kept; the tool then reports the
 * failure to the model instead of pretending the save happened.
 */
export type SaveHandoff = (doc: HandoffDocument) => Promise<string | undefined>;

/** What the handoff tools of one turn may be given besides their capture. */
export interface HandoffToolOptions {
	/** Keeps each document before the tool returns; without it the document lives in the capture only. */
	save?: SaveHandoff;
	/** Whether a checkpoint may still reset (`HANDOFF_MAX_RESETS` not yet used up); default yes. */
	resetsLeft?: () => boolean;
}

async function keep(doc: HandoffDocument, options: HandoffToolOptions): Promise<string | undefined> {
	if (!options.save) return undefined;
	try {
		return await options.save(doc);
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

/** `finish`: the last call of a turn; `done`, `partial` (the node continues afresh) or `blocked`. */
export function finishTool(capture: HandoffCapture, options: HandoffToolOptions = {}): ToolSpec {
	return {
		...FINISH_CONTRACT,
		async execute(args) {
			const doc = documentFromArguments(args, args.status as HandoffStatus, "finish", new Date());
			const failed = await keep(doc, options);
			if (failed) return { text: HANDOFF_RESULTS.finishNotSaved(failed), isError: true };
			capture.doc = doc;
			capture.reset = undefined;
			return { text: HANDOFF_RESULTS.finished(doc.status), terminate: true };
		},
	};
}

/** `checkpoint`: saves the document; with a reset, the node goes on in a fresh session seeded with it. */
export function checkpointTool(
	capture: HandoffCapture,
	defaultReset: "compact" | "session" | "none" = HANDOFF_DEFAULTS.checkpointReset,
	options: HandoffToolOptions = {},
): ToolSpec {
	return {
		...checkpointContract(defaultReset),
		async execute(args) {
			const doc = documentFromArguments(args, checkpointStatus(args), "checkpoint", new Date());
			const failed = await keep(doc, options);
			if (failed) return { text: HANDOFF_RESULTS.checkpointNotSaved(failed), isError: true };
			capture.doc = doc;
			const asked = (args.reset as HandoffCapture["reset"]) ?? defaultReset;
			const spent = asked !== "none" && options.resetsLeft?.() === false;
			const reset = spent ? "none" : asked;
			capture.reset = reset;
			if (spent) return { text: HANDOFF_RESULTS.notReset.breaker };
			if (reset === "none") return { text: HANDOFF_RESULTS.saved };
			return { text: HANDOFF_RESULTS.resetting, terminate: true };
		},
	};
}

/**
 * Whether the turn has handed off: a `finish`, or a checkpoint that ends the turn for a reset. After it
 * the watermark stays quiet, since its steer would keep a turn going whose work is already recorded.
 */
export function handedOff(capture: HandoffCapture): boolean {
	return (
		capture.doc !== undefined &&
		(capture.doc.by === "finish" || (capture.reset !== undefined && capture.reset !== "none"))
	);
}

/** A journaled document read back (see `RunRecorder.handoff`); undefined when it is not one. */
export function documentOf(value: Value | undefined): HandoffDocument | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	const v = value as Record<string, unknown>;
	const strings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === "string");
	if (typeof v.status !== "string" || typeof v.summary !== "string" || (v.by !== "finish" && v.by !== "checkpoint"))
		return undefined;
	if (!strings(v.decisions) || !strings(v.artifacts) || typeof v.writtenAt !== "string") return undefined;
	return v as unknown as HandoffDocument;
}

/** The document as the value later nodes read (`<node>.handoff.status`, ...). */
export function handoffValue(doc: HandoffDocument): Value {
	return {
		status: doc.status,
		summary: doc.summary,
		decisions: doc.decisions,
		artifacts: doc.artifacts,
		...(doc.next_task ? { next_task: doc.next_task } : {}),
		...(doc.blocked ? { blocked: doc.blocked } : {}),
	};
}

/**
 * The prompt of a continuation: the task, then the latest document, then what to do with it. Callers pass
 * the task itself, never an earlier continuation prompt, so the documents do not nest turn after turn.
 * `source` is the file the document can be read again from (`null`: none).
 */
export function continuationPrompt(task: string, doc: HandoffDocument, source: string | null = null): string {
	return `${task.trimEnd()}\n\n## Handoff from the previous session\n\n${handoffAsContext(doc, doc.by === "checkpoint" ? "cut" : "next", source)}\n\nYou are a fresh agent continuing this task from the document above: check its artifacts, then do what it says is left. End with \`finish\`.\n`;
}

/** The document in Markdown, for transcripts and reports. */
export { renderHandoff };
