/**
 * What the server knows of one run at one moment, whichever backend keeps it: the same facts a report
 * reads (snapshot, journal, events, result), plus what only a live watcher asks (is its process there,
 * which questions does it wait on). Sources (`folder-source.ts`, `dbos-source.ts`) fill it; the view
 * (`view.ts`) is a pure function of it.
 */
import type { AskCard } from "../engine/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import type { RecordedEvent, ResultFile, ToolTrouble } from "../report/index.ts";
import type { JournalEntry, Snapshot } from "../runs/index.ts";

/** Where a run lives. */
export type SourceKind = "folder" | "dbos";

/** What is known of the process (or workers) running the run. */
export type ProcessState =
	| {
			kind: "folder";
			/** The run folder's lock, when one is there; `alive` is undefined for another host's process. */
			lock?: { pid: number; host: string; startedAt: string; alive: boolean | undefined };
			/** Whether a stop of the current life was asked through the run folder. */
			stopAsked?: boolean;
	  }
	| { kind: "dbos"; status: string; stopRequested: boolean; broken?: string };

/** A question the run waits on. */
export interface WaitingQuestion {
	life: number;
	visit: string;
	card: AskCard;
}

/** One run as read now. */
export interface RunRecord {
	/** The run's id in URLs: a run folder's name, or a DBOS run's id. */
	id: string;
	source: SourceKind;
	/** Where the run is, as a person reads it (the run folder, or `<id> (DBOS backend)`). */
	where: string;
	snapshot: Snapshot;
	/** The snapshot's flow checked again; absent when it no longer checks. */
	flow?: CheckedFlow;
	journal: JournalEntry[];
	events: RecordedEvent[];
	result?: ResultFile;
	process: ProcessState;
	questions: WaitingQuestion[];
	/** When the run's record last grew (epoch ms): a run silent past its idle timeout is stalled. */
	lastRecordAt: number;
	/** Whether actions may touch it: a run folder whose seal checked (made here by this person), or a DBOS run. */
	sealed: boolean;
	/** Whether its flow or agents are the project's (repository content), which needs `--project`. */
	project: boolean;
	/** What could not be read, said on the page. */
	problems: string[];
	/** Tool calls refused and tools that failed, with their words (a run folder's transcripts; none for DBOS). */
	troubles: ToolTrouble[];
}
