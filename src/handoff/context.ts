/**
 * How a handoff document enters a fresh context: as the compaction summary of a reset, as the seed of a
 * new session, and the short messages that set the agent going again. Pure text, so the interactive
 * extension, the in-flow runner and the driver say the same thing.
 *
 *   handoffAsContext(doc, "compact") → "<handoff-document …>\n# HANDOFF …\n</handoff-document>\n\nThe conversation before …"
 */
import { type HandoffDocument, isChainEnd, renderHandoff } from "./document.ts";

/** Why a context is being built from a document: an in-place reset, a hard cut of the same task, or the next task. */
export type HandoffPurpose = "compact" | "cut" | "next";

const AFTERWORD: Record<HandoffPurpose, string> = {
	compact:
		"The conversation before this point was cleared on purpose and replaced by the checkpoint above, which you wrote. It is the record of the task now: trust it over anything you seem to remember, and read files again before you change them.",
	cut: "This is a new session for the same task. Nothing from the previous session was kept except the checkpoint above. Trust it over any assumption, and check the listed artifacts on disk before building on them.",
	next: "This is a new session with no memory of earlier ones. The document above is what the previous agent left; trust it over any assumption, and check the listed artifacts on disk before building on them.",
};

/**
 * The document wrapped so the model can tell it from a user's words, followed by what it means. `source`
 * names the file the agent can read it again from; `null` when it lives in no such file (a flow node's
 * checkpoint lives in the run's journal), so the agent is not sent looking for a HANDOFF.md that is not there.
 */
export function handoffAsContext(
	doc: HandoffDocument,
	purpose: HandoffPurpose,
	source: string | null = "HANDOFF.md",
): string {
	const from = source === null ? "" : ` source="${source}"`;
	return `<handoff-document purpose="${purpose}"${from}>\n${renderHandoff(doc)}</handoff-document>\n\n${AFTERWORD[purpose]}`;
}

/** The default first prompt of a new session when the human gave none. */
export function kickoffText(purpose: Exclude<HandoffPurpose, "compact">, doc: HandoffDocument): string {
	const end = "Save progress with `checkpoint` at each milestone and end with `finish` as your final action.";
	if (purpose === "cut") {
		return `Continue the task from the checkpoint document: check its artifacts on disk, then carry on with what it says is left${doc.next_task?.trim() ? " (its Next task section)" : ""}. ${end}`;
	}
	if (isChainEnd(doc)) {
		return `The previous agent left no next task. Work out what remains from its "What was done" and "Open issues / risks" sections, check the artifacts on disk, and do that. ${end}`;
	}
	return `Carry out the "Next task" section of the handoff document. Check the listed artifacts on disk first. ${end}`;
}

/** How an in-place reset ended, which decides what the agent is told when it resumes. */
export type ResetOutcome =
	| { kind: "reset" }
	| { kind: "replaced"; doc: HandoffDocument }
	| { kind: "failed"; reason: string };

/** The message that restarts the agent after a reset attempt; it must not depend on the context surviving. */
export function resumeText(outcome: ResetOutcome): string {
	const carryOn =
		"Carry on with the task from where the document says it stands; `checkpoint` again at the next milestone, `finish` when done.";
	switch (outcome.kind) {
		case "reset":
			return `Your context was reset to the checkpoint you just wrote. ${carryOn}`;
		case "replaced":
			// Another extension's summary won the compaction, so the document is not in context yet: send it.
			return `Your context was compacted, but not with your checkpoint. Here it is; treat it as the record of the task.\n\n${handoffAsContext(outcome.doc, "compact")}\n\n${carryOn}`;
		case "failed":
			return `Your checkpoint was saved to HANDOFF.md, but the context could not be reset (${outcome.reason}). Nothing was lost. ${carryOn}`;
	}
}
