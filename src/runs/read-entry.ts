/**
 * A journal line as this version reads it, whatever version wrote it: failure kinds are read onto the
 * closed set (`readFailureKind`), so a kind this version does not know reads as `unknown` rather than
 * reaching the evaluator as a string no table has a row for. Field names are the ones every version wrote.
 *
 *   { type: "visit_end", ended: { ok: false, error: { kind: "gone", message: "…" } } }
 *     → { type: "visit_end", ended: { ok: false, error: { kind: "unknown", message: "…" } } }
 */
import { readFailure, readFailureKind } from "../runtime/index.ts";
import type { JournalEntry } from "./journal.ts";

/** One parsed journal line, its failures read onto today's kinds; every other field is left as written. */
export function readEntry(raw: JournalEntry): JournalEntry {
	if (raw.type === "visit_end" && raw.ended?.error !== undefined) {
		const error = readFailure(raw.ended.error);
		if (error) return { ...raw, ended: { ...raw.ended, error } };
	}
	if (raw.type === "run_end" && raw.errorKind !== undefined)
		return { ...raw, errorKind: readFailureKind(raw.errorKind) };
	return raw;
}
