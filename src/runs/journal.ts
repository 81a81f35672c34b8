/**
 * The journal: one JSON line per fact, appended and flushed to disk (fsync) at each visit's end, so a
 * crash loses at most the visits that had not ended. A torn last line (the crash happened mid-write) is
 * ignored when reading; any other bad line is reported, never guessed at.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import type { AskAnswer, EndedVisit } from "../engine/index.ts";
import type { Value } from "../language/types/index.ts";
import type { VisitIdentity } from "../identity/index.ts";
import type { FailureKind } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import { redactedJson } from "../secrets/index.ts";
import { APPEND_NO_LINK } from "./files.ts";
import { readEntry } from "./read-entry.ts";

/** Every fact a journal holds. */
export type JournalEntry =
	| {
			type: "life_start";
			life: number;
			at: string;
			pid: number;
			host: string;
			/** The life's root span as W3C `traceparent`, when it was traced: a later life's root links to it. */
			trace?: string;
	  }
	| { type: "visit_start"; life: number; path: string; node: string; kind: string; at: string }
	/** What the visit is asked and can do, part by part (`src/identity`), written as it starts. */
	| { type: "identity"; life: number; path: string; identity: VisitIdentity }
	| {
			type: "visit_end";
			life: number;
			path: string;
			node: string;
			kind: string;
			ended: EndedVisit;
			usage: Usage;
			at: string;
	  }
	| { type: "map_items"; path: string; items: Value[] }
	/** A fact a kind keeps about a visit, by the kind's own key (a `wait`'s deadline): `RunRecorder.fact`. */
	| { type: "fact"; life: number; path: string; key: string; value: Value; at: string }
	| { type: "carry"; path: string; value: Value }
	| { type: "asked"; path: string; question: string; answer: AskAnswer }
	| { type: "tool_call"; life: number; path: string; tool: string }
	/**
	 * A tool result of a turn that was an error, with its words (`tool-troubles.ts`): written by the DBOS
	 * backend, which keeps no transcripts, so its report lists refused calls and failed tools as a folder's does.
	 */
	| { type: "tool_trouble"; life: number; path: string; tool: string; refused: boolean; words: string }
	| { type: "handoff"; life: number; path: string; doc: Value; at: string }
	/**
	 * What each model request of a turn answered and a digest of what it was asked (`src/cassette`): written
	 * by the DBOS backend, which keeps no transcripts, so a run of its database can be recorded as a cassette.
	 */
	| { type: "turns"; life: number; path: string; turns: unknown[] }
	/** The tree a visit that may write started from (`path` ""`: the run's start), as a git tree object. */
	| { type: "tree"; life: number; path: string; tree: string; head?: string; at: string }
	| {
			type: "run_end";
			life: number;
			ok: boolean;
			error?: string;
			errorKind?: FailureKind;
			failedAt?: string;
			output?: unknown;
			at: string;
	  };

/** Appends entries; an injected port in tests (a disk that fails, an array). */
export interface JournalWriter {
	append(entry: JournalEntry, durable?: boolean): void;
	close(): void;
}

/** A journal file, appended synchronously; `durable` entries are fsynced before `append` returns. */
export function fileJournal(path: string): JournalWriter {
	const fd = openSync(path, APPEND_NO_LINK, 0o644);
	let closed = false;
	return {
		append(entry, durable = false) {
			if (closed) return;
			// Masked at the writer: a provider's error echoing its key never reaches the record.
			writeSync(fd, `${redactedJson(entry)}\n`);
			if (durable) fsyncSync(fd);
		},
		close() {
			if (closed) return;
			closed = true;
			fsyncSync(fd);
			closeSync(fd);
		},
	};
}

/** The entries of a journal, or why it cannot be read. */
export function readJournal(
	path: string,
): { ok: true; entries: JournalEntry[]; torn: boolean } | { ok: false; error: string } {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		return { ok: false, error: `cannot read ${path}: ${(error as Error).message}` };
	}
	const lines = text.split("\n");
	const last = lines.pop() ?? "";
	const entries: JournalEntry[] = [];
	for (const [i, line] of lines.entries()) {
		if (!line.trim()) continue;
		try {
			entries.push(readEntry(JSON.parse(line) as JournalEntry));
		} catch {
			return {
				ok: false,
				error: `${path}:${i + 1}: the journal has a line that is not JSON; it was written by something else or damaged`,
			};
		}
	}
	// A last line without its newline was cut by a crash mid-write: the fact it held never happened.
	return { ok: true, entries, torn: last.trim() !== "" };
}
