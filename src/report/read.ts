/**
 * The report's one door to the disk: everything the page shows is read here into {@link RunData}, and the
 * rest of `src/report/` is pure functions of it, so tests render reports from data and the page never
 * depends on when or where it was made. A folder missing a file (a run cut by a crash writes no
 * `usage.json` or `result.json`) still makes a report: what is absent is rebuilt from the journal or
 * listed as a problem.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { CheckedFlow } from "../language/index.ts";
import type { FlowEvent } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import {
	fromSnapshot,
	type JournalEntry,
	readJournal,
	readSnapshot,
	type Snapshot,
	type UsageFile,
	usageOf,
} from "../runs/index.ts";
import { readTroubles, type ToolTrouble } from "./troubles.ts";

/** An event as `events.jsonl` keeps it: the event, the life it happened in and its ISO time. */
export type RecordedEvent = FlowEvent & { life: number; at: string };

/** What `result.json` says about the last life. */
export interface ResultFile {
	ok: boolean;
	output?: unknown;
	error?: string;
	errorKind?: string;
	failedAt?: string;
	usage?: Usage;
	/** Failed visits `on-fail: continue` absorbed. */
	absorbed?: {
		count: number;
		byKind: Record<string, number>;
		visits: { path: string; kind: string; message: string }[];
	};
}

/** Everything a report is made of, read once. */
export interface RunData {
	/** The run folder, as the page names it. */
	dir: string;
	snapshot: Snapshot;
	/** The snapshot's flow checked again; absent when it no longer checks (the reason is in `problems`). */
	flow?: CheckedFlow;
	journal: JournalEntry[];
	events: RecordedEvent[];
	usage: UsageFile;
	/** False when `usage.json` was missing and the usage was rebuilt from the journal. */
	usageFromFile: boolean;
	result?: ResultFile;
	/** What could not be read, said on the page instead of failing the report. */
	problems: string[];
	/** Tool calls refused and tools that failed, with their words, from the transcripts (troubles.ts). */
	troubles: ToolTrouble[];
}

/** Reads a run folder; an error only when there is no snapshot, since without it there is no flow to show. */
export function readRun(runDir: string): { ok: true; value: RunData } | { ok: false; error: string } {
	const snap = readSnapshot(runDir);
	if (!snap.ok) return { ok: false, error: snap.error };
	const problems: string[] = [];
	const checked = fromSnapshot(snap.value);
	if ("error" in checked) problems.push(`the graph cannot be drawn: ${checked.error}`);
	let journal: JournalEntry[] = [];
	const read = readJournal(join(runDir, "journal.jsonl"));
	if (read.ok) {
		journal = read.entries;
		if (read.torn) problems.push("the journal's last line was cut mid-write (a crash); it is ignored");
	} else problems.push(read.error);
	const events = readEvents(join(runDir, "events.jsonl"), problems);
	const written = readJson<UsageFile>(join(runDir, "usage.json"), problems);
	// usage.json is unsealed: the figures are the journal's (which the seal covers), and a file that
	// disagrees with them is said to.
	const fromJournal = usageOf(journal, snap.value.settings.budget);
	const usageFile = written && isDeepStrictEqual(written, fromJournal) ? written : undefined;
	if (written && !usageFile)
		problems.push(
			"usage.json differs from the journal (it is from an earlier life, or it was changed after it was written); the figures here are the journal's",
		);
	const result = readJson<ResultFile>(join(runDir, "result.json"), problems);
	return {
		ok: true,
		value: {
			dir: runDir,
			snapshot: snap.value,
			...("value" in checked ? { flow: checked.value } : {}),
			journal,
			events,
			usage: usageFile ?? fromJournal,
			usageFromFile: usageFile !== undefined,
			...(result ? { result } : {}),
			problems,
			troubles: readTroubles(runDir),
		},
	};
}

/** Events, skipping lines that are not JSON: the file is a log for reports, not a record a resume trusts. */
function readEvents(path: string, problems: string[]): RecordedEvent[] {
	if (!existsSync(path)) {
		problems.push("the run has no events.jsonl; the timeline is drawn from the journal");
		return [];
	}
	const out: RecordedEvent[] = [];
	let bad = 0;
	for (const line of readFileSync(path, "utf8").split("\n")) {
		if (!line.trim()) continue;
		try {
			const e = JSON.parse(line) as RecordedEvent;
			if (e && typeof e === "object" && typeof e.type === "string") out.push(e);
			else bad++;
		} catch {
			bad++;
		}
	}
	if (bad) problems.push(`events.jsonl has ${bad} line(s) that are not events; they are left out`);
	return out;
}

function readJson<T>(path: string, problems: string[]): T | undefined {
	if (!existsSync(path)) return undefined;
	try {
		return JSON.parse(readFileSync(path, "utf8")) as T;
	} catch (error) {
		problems.push(`${path} cannot be read: ${(error as Error).message}`);
		return undefined;
	}
}
