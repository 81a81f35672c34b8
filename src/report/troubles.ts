/**
 * What went wrong inside the turns, with its words: every tool call pi refused (its arguments did not
 * validate: `files: expected at most 10 items`) and every tool that failed as it ran (`find: fd is not
 * available`), read from the run's transcripts (or, on the DBOS backend, which keeps none, from the
 * journal's `tool_trouble` facts); every visit that was ever cut in doubt, life by life; and what a resume
 * would truly do with the run as it stands. The page shows these as rows of their own beside the counts,
 * so a person reads the cause, not a number.
 *
 *   readTroubles(runDir) → [{ life: 1, visit: "look", tool: "find", refused: false, words: "fd is not available" }]
 *   resumeWould(journal)  → "A resume stops at the visit in doubt (fix) unless told: …"
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type JournalEntry, journalState, type TroubleWords, troublesIn } from "../runs/index.ts";
import { redactText } from "../secrets/index.ts";

/** One tool result that was an error, and the visit and life whose turn it was. */
export interface ToolTrouble extends TroubleWords {
	life: number;
	visit: string;
}

interface TranscriptLine {
	life?: number;
	visit?: string;
	message?: unknown;
}

/** Every erroring tool result the run's transcripts hold, in file order (a run folder's). */
export function readTroubles(runDir: string): ToolTrouble[] {
	const dir = join(runDir, "transcripts");
	if (!existsSync(dir)) return [];
	const out: ToolTrouble[] = [];
	for (const file of readdirSync(dir)
		.filter((f) => f.endsWith(".jsonl"))
		.sort()) {
		for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
			if (!line.trim()) continue;
			let parsed: TranscriptLine;
			try {
				parsed = JSON.parse(line) as TranscriptLine;
			} catch {
				continue;
			}
			for (const t of troublesIn([parsed.message]))
				out.push({ life: parsed.life ?? 1, visit: parsed.visit ?? "", ...t });
		}
	}
	return out;
}

/** The troubles a journal holds as `tool_trouble` facts (the DBOS backend's, which keeps no transcripts). */
export function journalTroubles(journal: readonly JournalEntry[]): ToolTrouble[] {
	return journal.flatMap((e) =>
		e.type === "tool_trouble"
			? [{ life: e.life, visit: e.path, tool: e.tool, refused: e.refused, words: redactText(e.words) }]
			: [],
	);
}

/** Every visit cut in doubt, with the life it was cut in (a later life may have run it again). */
export function inDoubtByLife(journal: readonly JournalEntry[]): { life: number; visits: string[] }[] {
	const lives = [...new Set(journal.flatMap((e) => (e.type === "life_start" ? [e.life] : [])))];
	const out: { life: number; visits: string[] }[] = [];
	for (const life of lives) {
		const upTo = journal.findIndex((e) => e.type === "life_start" && e.life === life + 1);
		const visits = journalState(upTo < 0 ? journal : journal.slice(0, upTo)).inDoubt;
		if (visits.length) out.push({ life, visits });
	}
	return out;
}

/** What `pi-flows resume` would do with the run as its journal stands, in one or two sentences. */
export function resumeWould(journal: readonly JournalEntry[], decided: boolean): string {
	const state = journalState(journal);
	if (state.end?.ok) return "The run ended well: a resume has nothing to do.";
	if (decided) return "The flow itself decided this failure: a resume would decide the same, so it refuses.";
	const replayed = [...state.endedCount.keys()].filter((p) => state.replay.ended(p)).length;
	const again = state.cut.length ? ` and runs again from its start ${state.cut.join(", ")}` : "";
	if (state.inDoubt.length)
		return `A resume stops at the visit in doubt (${state.inDoubt.join(", ")}) unless told: \`--in-doubt rerun\` puts back the files it changed to the tree it started from and runs it again; \`--in-doubt stop\` refuses and leaves the tree as it is. Then it replays the ${replayed} visit(s) that ended${again}.`;
	return `A resume replays the ${replayed} visit(s) that ended${again}, then goes on from there.`;
}
