/**
 * The handoff protocol inside flows: every turn a flow runs is offered `finish` (terminal: the turn ends
 * on the call, with no victory-lap tokens) and `checkpoint` (a save; with a reset, the node goes on in a
 * fresh session seeded with the document). The document is the handoff of `../../handoff/`, the same one
 * interactive sessions write, and later nodes read it as `<node>.handoff`.
 */
import {
	HANDOFF_DEFAULTS,
	type HandoffDocument,
	type HandoffStatus,
	handoffAsContext,
	renderHandoff,
} from "../../handoff/index.ts";
import type { ToolSpec } from "../../runtime/tool.ts";
import type { Value } from "../types/index.ts";

/** What a turn's handoff tools captured. */
export interface HandoffCapture {
	doc?: HandoffDocument;
	/** How the node goes on after a checkpoint: in a fresh session seeded with the document, or not at all. */
	reset?: "compact" | "session" | "none";
}

// pi turns every tool's schema into a declaration by a JSON round trip about ten times per request, at a
// cost that grows with the number of objects in it: the fields' meaning lives in the tool's description
// (a string pi passes on by reference), and the schema keeps only the shape. Extra fields are ignored by
// `docFrom`, so the schema does not spend an object forbidding them.
const TEXT = { type: "string" };
const LIST = { type: "array", items: TEXT };
const DOC_PROPERTIES = { summary: TEXT, decisions: LIST, artifacts: LIST, next_task: TEXT, blocked: TEXT };
const DOC_FIELDS =
	"Fields: summary (what was done), decisions (each with why), artifacts (files changed), next_task (what is left, for an agent with no memory of this), blocked (what needs a person).";

// One object each for every turn: pi compiles a validator per schema, and keeps it for an object it has seen.
const FINISH_PARAMETERS = {
	type: "object",
	properties: { status: { type: "string", enum: ["done", "partial", "blocked"] }, ...DOC_PROPERTIES },
	required: ["status", "summary"],
};
const CHECKPOINT_PARAMETERS = {
	type: "object",
	properties: {
		status: { type: "string", enum: ["in-progress", "done", "partial", "blocked"] },
		reset: { type: "string", enum: ["compact", "session", "none"] },
		...DOC_PROPERTIES,
	},
	required: ["status", "summary"],
};

function docFrom(args: Record<string, unknown>, status: HandoffStatus, by: HandoffDocument["by"]): HandoffDocument {
	const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
	const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
	const doc: HandoffDocument = {
		status,
		summary: typeof args.summary === "string" ? args.summary : "",
		decisions: list(args.decisions),
		artifacts: list(args.artifacts),
		writtenAt: new Date().toISOString(),
		by,
	};
	const next = text(args.next_task);
	const blocked = text(args.blocked);
	if (next) doc.next_task = next;
	if (blocked) doc.blocked = blocked;
	return doc;
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
		name: "finish",
		label: "Finish",
		description: `End your task with a handoff document: status done (the task is complete), partial (what is left goes in next_task; a fresh agent continues from it) or blocked (a person must act). The call ends your turn. ${DOC_FIELDS}`,
		parameters: FINISH_PARAMETERS,
		async execute(args) {
			const doc = docFrom(args, args.status as HandoffStatus, "finish");
			const failed = await keep(doc, options);
			if (failed) return { text: `The handoff was not saved (${failed}); call \`finish\` again.`, isError: true };
			capture.doc = doc;
			capture.reset = undefined;
			return { text: "Handoff recorded.", terminate: true };
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
		name: "checkpoint",
		label: "Checkpoint",
		description: `Save your progress as a handoff document at a milestone. With reset compact or session (the default is ${defaultReset}), this conversation is replaced by the document and you continue from it; with none, only the document is saved. ${DOC_FIELDS}`,
		parameters: CHECKPOINT_PARAMETERS,
		async execute(args) {
			const doc = docFrom(args, args.status as HandoffStatus, "checkpoint");
			const failed = await keep(doc, options);
			if (failed)
				return { text: `The checkpoint was not saved (${failed}); keep working and try again.`, isError: true };
			capture.doc = doc;
			const asked = (args.reset as HandoffCapture["reset"]) ?? defaultReset;
			const spent = asked !== "none" && options.resetsLeft?.() === false;
			const reset = spent ? "none" : asked;
			capture.reset = reset;
			if (spent)
				return {
					text: "Checkpoint saved. Automatic resets are used up for this task (HANDOFF_MAX_RESETS), so the context stays as it is; keep working.",
				};
			if (reset === "none") return { text: "Checkpoint saved." };
			return { text: "Checkpoint saved; you will continue from it in a fresh context.", terminate: true };
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
