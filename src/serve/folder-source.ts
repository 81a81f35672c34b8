/**
 * Run folders as the server reads them: the folders of the project's runs home (the ones `pi-flows
 * report` reads), each followed by the growth of its journal and events files (read from where the last
 * read stopped, a line cut mid-write kept for the next read), its lock (is its process there) and the
 * questions its life put in `control/`. Nothing here writes; actions are `actions.ts`'.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { type RecordedEvent, type ResultFile, readTroubles, type ToolTrouble } from "../report/index.ts";
import {
	fromSnapshot,
	type JournalEntry,
	listRunFolders,
	lockHolder,
	putQuestions,
	readEntry,
	readSnapshot,
	runKey,
	type Snapshot,
	stopAsked,
	verifyRun,
} from "../runs/index.ts";
import { isProjectRun } from "./trust.ts";
import type { RunRecord } from "./record.ts";

/** Lines appended to a file since the last read, by byte offset; a last line without its newline waits. */
class Tail {
	readonly path: string;
	#offset = 0;
	#rest = "";
	lines = 0;
	constructor(path: string) {
		this.path = path;
	}
	/** New whole lines, or none. */
	read(): string[] {
		let fd: number;
		try {
			fd = openSync(this.path, "r");
		} catch {
			return [];
		}
		try {
			const size = fstatSync(fd).size;
			// A file replaced by a shorter one (never done by a run) is read again from its start.
			if (size < this.#offset) {
				this.#offset = 0;
				this.#rest = "";
			}
			if (size === this.#offset) return [];
			const buf = Buffer.alloc(size - this.#offset);
			const n = readSync(fd, buf, 0, buf.length, this.#offset);
			this.#offset += n;
			const text = this.#rest + buf.subarray(0, n).toString("utf8");
			const parts = text.split("\n");
			this.#rest = parts.pop() ?? "";
			const out = parts.filter((l) => l.trim());
			this.lines += out.length;
			return out;
		} finally {
			closeSync(fd);
		}
	}
}

function mtime(path: string): number {
	try {
		return statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}

/** One run folder followed as it grows. */
export class FolderRun {
	readonly dir: string;
	readonly id: string;
	readonly snapshot: Snapshot;
	readonly flow: RunRecord["flow"];
	readonly sealed: boolean;
	readonly project: boolean;
	readonly #journal: Tail;
	readonly #events: Tail;
	readonly #entries: JournalEntry[] = [];
	readonly #recorded: RecordedEvent[] = [];
	readonly #problems: string[] = [];
	/** The transcripts' tool troubles, read again only when the record grew. */
	#troubles: { at: string; list: ToolTrouble[] } = { at: "", list: [] };
	#badEvents = 0;
	/** The lock as the last poll read it, before the files. */
	#lock: ReturnType<typeof lockHolder>;

	readonly #withEvents: boolean;

	private constructor(dir: string, snapshot: Snapshot, sealed: boolean, withEvents: boolean) {
		this.#withEvents = withEvents;
		this.dir = dir;
		this.id = basename(dir);
		this.snapshot = snapshot;
		const checked = fromSnapshot(snapshot);
		this.flow = "value" in checked ? checked.value : undefined;
		if ("error" in checked) this.#problems.push(`the graph cannot be drawn: ${checked.error}`);
		this.sealed = sealed;
		this.project = isProjectRun(snapshot);
		this.#journal = new Tail(join(dir, "journal.jsonl"));
		this.#events = new Tail(join(dir, "events.jsonl"));
	}

	/** Opens a run folder, or says why it cannot be shown (no readable snapshot). */
	static open(dir: string, keyDir: string, withEvents = true): FolderRun | { error: string } {
		const snap = readSnapshot(dir);
		if (!snap.ok) return { error: snap.error };
		return new FolderRun(dir, snap.value, sealedHere(dir, keyDir), withEvents);
	}

	/** Reads the lock, then what was appended since the last call; true when the record grew. */
	poll(): boolean {
		// The lock before the files' last lines: a run writes its end and then lets go of its lock, so a lock read
		// first never says "gone" of a journal read without its end (which would show the run cut for a moment).
		this.#lock = lockHolder(this.dir);
		let grew = false;
		for (const line of this.#journal.read()) {
			try {
				this.#entries.push(readEntry(JSON.parse(line) as JournalEntry));
				grew = true;
			} catch {
				this.#problems.push(`${this.#journal.path}: a line that is not JSON (damaged, or written by something else)`);
			}
		}
		for (const line of this.#withEvents ? this.#events.read() : []) {
			try {
				const e = JSON.parse(line) as RecordedEvent;
				if (e && typeof e === "object" && typeof e.type === "string") {
					this.#recorded.push(e);
					grew = true;
				} else this.#badEvents++;
			} catch {
				this.#badEvents++;
			}
		}
		return grew;
	}

	/** Where the record stands: journal lines and event lines read so far. */
	position(): string {
		return `${this.#journal.lines}.${this.#events.lines}`;
	}

	/** The run as the last {@link poll} read it, with its questions as they are now. */
	record(): RunRecord {
		const lock = this.#lock;
		const life = Math.max(0, ...this.#entries.flatMap((e) => (e.type === "life_start" ? [e.life] : [])));
		const problems = [...this.#problems];
		if (this.#badEvents) problems.push(`events.jsonl has ${this.#badEvents} line(s) that are not events`);
		const result = readResult(this.dir);
		return {
			id: this.id,
			source: "folder",
			where: this.dir,
			snapshot: this.snapshot,
			...(this.flow ? { flow: this.flow } : {}),
			journal: this.#entries,
			events: this.#recorded,
			...(result ? { result } : {}),
			process: { kind: "folder", ...(lock ? { lock } : {}), stopAsked: life > 0 && stopAsked(this.dir, life) },
			questions: putQuestions(this.dir)
				.filter((q) => lock?.pid === q.pid && lock.alive !== false)
				.map((q) => ({ life: q.life, visit: q.visit, card: q.card })),
			lastRecordAt: Math.max(
				mtime(join(this.dir, "journal.jsonl")),
				mtime(join(this.dir, "events.jsonl")),
				Date.parse(this.snapshot.createdAt) || 0,
			),
			sealed: this.sealed,
			project: this.project,
			problems,
			troubles: this.#troublesNow(),
		};
	}

	#troublesNow(): ToolTrouble[] {
		const at = this.position();
		if (this.#troubles.at !== at) this.#troubles = { at, list: readTroubles(this.dir) };
		return this.#troubles.list;
	}
}

function readResult(dir: string): ResultFile | undefined {
	const path = join(dir, "result.json");
	if (!existsSync(path)) return undefined;
	try {
		return JSON.parse(readFileSync(path, "utf8")) as ResultFile;
	} catch {
		return undefined;
	}
}

/** Whether the folder is one this person's pi-flows made here (its seal checks with their key). */
export function sealedHere(dir: string, keyDir: string): boolean {
	const key = runKey(keyDir);
	return key.ok && verifyRun(key.key, dir).ok;
}

/** The run folders of a runs home, newest first (as `report` and `resume` find them). */
export function folderRuns(home: string): string[] {
	return listRunFolders(home);
}
