/**
 * The one contract of the handoff tools: `finish` and `checkpoint` as the model sees them (name,
 * description, parameter schema, result texts) and the step from a call's arguments to a document.
 * Flow turns and the driver (`engine/handoff-tools.ts`) and the interactive extension
 * (`extension/handoff/`) build their tools from this, so a model meets the same two tools everywhere;
 * what a surface does with the document (journal it, write HANDOFF.md, arm a reset) stays its own.
 *
 *   finish({ status: "partial", summary: "Parser done.", next_task: "Write the checker." })
 *   → documentFromArguments(args, "partial", "finish", now) → { status: "partial", summary: …, by: "finish" }
 *
 * Every word here is paid on every request that declares the tools, so descriptions are short, the
 * fields' meaning lives in one sentence of the description, and the schema keeps only the shape.
 */
import type { HandoffAuthor, HandoffDocument, HandoffStatus } from "./document.ts";
import type { ResetMode } from "./settings.ts";

/** The two tools, in the order they are declared. */
export const HANDOFF_TOOL_NAMES = ["finish", "checkpoint"] as const;

/** The name of one of them. */
export type HandoffToolName = (typeof HANDOFF_TOOL_NAMES)[number];

/** The arguments either tool receives (checkpoint's `status` defaults to `in-progress`). */
export interface HandoffToolArguments {
	status?: HandoffStatus;
	summary: string;
	decisions?: string[];
	artifacts?: string[];
	next_task?: string;
	blocked?: string;
	/** checkpoint only. */
	reset?: ResetMode;
}

// pi turns every tool's schema into a declaration by a JSON round trip about ten times per request, at a
// cost that grows with the number of objects in it: the fields' meaning lives in the description (a
// string pi passes on by reference). Extra fields are ignored by `documentFromArguments`, so the schema
// does not spend an object forbidding them. One object each, for every session: pi compiles a validator
// per schema and keeps it for an object it has seen.
const TEXT = { type: "string" };
const LIST = { type: "array", items: TEXT };
const DOC_PROPERTIES = { summary: TEXT, decisions: LIST, artifacts: LIST, next_task: TEXT, blocked: TEXT };
const FIELDS =
	"summary: what was done. decisions: each with why. artifacts: files changed. next_task: what is left, for an agent with no memory of this. blocked: what needs a person.";

/** JSON Schema of `finish`'s arguments. */
export const FINISH_PARAMETERS: Readonly<Record<string, unknown>> = {
	type: "object",
	properties: { status: { type: "string", enum: ["done", "partial", "blocked"] }, ...DOC_PROPERTIES },
	required: ["status", "summary"],
};

/** JSON Schema of `checkpoint`'s arguments. */
export const CHECKPOINT_PARAMETERS: Readonly<Record<string, unknown>> = {
	type: "object",
	properties: {
		status: { type: "string", enum: ["in-progress", "done", "partial", "blocked"] },
		reset: { type: "string", enum: ["compact", "session", "none"] },
		...DOC_PROPERTIES,
	},
	required: ["summary"],
};

/** What a tool is declared as: the same for every surface. */
export interface HandoffToolContract {
	name: HandoffToolName;
	label: string;
	description: string;
	parameters: Readonly<Record<string, unknown>>;
}

/** `finish`: ends the task on a document. */
export const FINISH_CONTRACT: HandoffToolContract = {
	name: "finish",
	label: "Finish",
	description: `End your task with a handoff document, alone and as your last call. status: done, partial (a fresh agent continues from next_task) or blocked (a person must act). ${FIELDS}`,
	parameters: FINISH_PARAMETERS,
};

const CHECKPOINTS = new Map<ResetMode, HandoffToolContract>();

/**
 * `checkpoint`: a save at a milestone; the description names the surface's default reset, so there is
 * one contract per default (built once each).
 */
export function checkpointContract(defaultReset: ResetMode): HandoffToolContract {
	let contract = CHECKPOINTS.get(defaultReset);
	if (!contract) {
		contract = {
			name: "checkpoint",
			label: "Checkpoint",
			description: `Save progress as a handoff document (status in-progress unless given). reset compact or session (default ${defaultReset}): this conversation is replaced by the document and you continue from it; none: only save. ${FIELDS}`,
			parameters: CHECKPOINT_PARAMETERS,
		};
		CHECKPOINTS.set(defaultReset, contract);
	}
	return contract;
}

/** What the tools answer, the same words on every surface. */
export const HANDOFF_RESULTS = {
	finished: (status: HandoffStatus) => `Handoff saved with status ${status}. Your task ends here.`,
	finishNotSaved: (why: string) => `The handoff was not saved (${why}); call \`finish\` again.`,
	finishNotAlone: "Nothing was saved: call `finish` alone, after the other tool calls have returned.",
	checkpointNotSaved: (why: string) => `The checkpoint was not saved (${why}); keep working and try again.`,
	saved: "Checkpoint saved. Keep working.",
	resetting: "Checkpoint saved; you will continue from it in a fresh context. Stop here.",
	/** A reset was asked for but will not happen; the reason follows "Checkpoint saved. ". */
	notReset: {
		breaker:
			"Checkpoint saved. Automatic resets are used up for this task, so the context stays as it is; keep working.",
		headless: "Checkpoint saved. No reset in a headless run (each run is already a fresh context); keep working.",
		busy: "Checkpoint saved. A reset is already under way, so this one only saved the document; keep working.",
	},
	switchedOff: "The handoff protocol is switched off; nothing was saved.",
} as const;

/**
 * The document a call describes. `status` is the tool's (checkpoint's default applied by the caller);
 * blank optional text counts as absent, so "" cannot pose as a next task, and anything that is not a
 * string or a list of strings is dropped rather than trusted.
 */
export function documentFromArguments(
	args: Readonly<Record<string, unknown>>,
	status: HandoffStatus,
	by: HandoffAuthor,
	now: Date,
): HandoffDocument {
	const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
	const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
	const doc: HandoffDocument = {
		status,
		summary: typeof args.summary === "string" ? args.summary : "",
		decisions: list(args.decisions),
		artifacts: list(args.artifacts),
		writtenAt: now.toISOString(),
		by,
	};
	const next = text(args.next_task);
	const blocked = text(args.blocked);
	if (next) doc.next_task = next;
	if (blocked) doc.blocked = blocked;
	return doc;
}

/** checkpoint's status: the one given, else `in-progress` (a save along the way). */
export function checkpointStatus(args: Readonly<Record<string, unknown>>): HandoffStatus {
	const s = args.status;
	return s === "done" || s === "partial" || s === "blocked" || s === "in-progress" ? s : "in-progress";
}
