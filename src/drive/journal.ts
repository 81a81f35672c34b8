/**
 * The driver's journal: one JSON line per fact of a chain (a life started, a turn started, a handoff
 * document saved, a turn ended, the chain ended), fsynced as it is written, so a driver killed at any
 * instant is restarted from what it had recorded. A pointer file, `.pi/drive/current.json`, names the
 * journal of the project's latest drive, so `pi-flows drive TASK.md` run again finds it.
 *
 *   .pi/drive/current.json              { "logDir": ".pi/drive/2026-…", "taskSha": "…" }
 *   .pi/drive/2026-…/journal.jsonl       {"type":"turn_start","n":2,…}\n{"type":"handoff","n":2,…}\n…
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { HandoffDocument } from "../handoff/index.ts";
import type { Usage } from "../runtime/index.ts";

/** How one turn went. */
export type TurnOutcome = "handoff" | "recovered" | "crashed" | "no-handoff" | "stopped";

/** How a chain ended; each has its own exit code in the CLI. */
export type DriveEnd = "complete" | "blocked" | "max-turns" | "no-handoff" | "stopped" | "refused";

/** Every fact the journal holds. */
export type DriveEntry =
	| { type: "drive_start"; life: number; task: string; taskSha: string; at: string; pid: number }
	| {
			type: "turn_start";
			n: number;
			life: number;
			/** The task this turn works on: the chain's task, or the next_task it was handed. */
			task: string;
			/** `writtenAt` of the HANDOFF.md on disk when the turn started, so a document the turn wrote is told apart. */
			before?: string;
			at: string;
	  }
	| { type: "handoff"; n: number; doc: HandoffDocument; at: string }
	| {
			type: "turn_end";
			n: number;
			outcome: TurnOutcome;
			doc?: HandoffDocument;
			error?: string;
			usage: Usage;
			at: string;
	  }
	| { type: "drive_end"; end: DriveEnd; at: string };

/** Where the project's latest drive keeps its pointer. */
export function currentPointerPath(cwd: string): string {
	return join(cwd, ".pi", "drive", "current.json");
}

/** What the pointer says. */
export interface DrivePointer {
	/** Absolute. */
	logDir: string;
	taskSha: string;
}

/** A task's identity: a drive of an edited task is a different drive. */
export function taskSha(task: string): string {
	return createHash("sha256").update(task.trim()).digest("hex").slice(0, 16);
}

/** Reads the pointer; undefined when there is none or it is unusable. */
export function readPointer(cwd: string): DrivePointer | undefined {
	try {
		const value = JSON.parse(readFileSync(currentPointerPath(cwd), "utf8")) as Partial<DrivePointer>;
		const { logDir, taskSha } = value;
		return typeof logDir === "string" && typeof taskSha === "string" ? { logDir, taskSha } : undefined;
	} catch {
		return undefined;
	}
}

/** Points the project at a drive: temp file, fsync, rename, so the pointer is whole or the old one. */
export function writePointer(cwd: string, pointer: DrivePointer): void {
	const path = currentPointerPath(cwd);
	mkdirSync(dirname(path), { recursive: true });
	const temp = `${path}.${process.pid}.tmp`;
	writeFileSync(temp, `${JSON.stringify(pointer, null, 2)}\n`);
	const fd = openSync(temp, "r");
	try {
		fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
	renameSync(temp, path);
}

/** The journal file of a drive's log folder. */
export function journalPath(logDir: string): string {
	return join(logDir, "journal.jsonl");
}

/** Appends facts; each is on disk (fsync) before `append` returns. */
export interface DriveJournal {
	append(entry: DriveEntry): void;
	close(): void;
}

/** Opens (or creates) the journal of `logDir` for appending. */
export function openDriveJournal(logDir: string): DriveJournal {
	mkdirSync(logDir, { recursive: true });
	const fd = openSync(journalPath(logDir), "a");
	let closed = false;
	return {
		append(entry) {
			if (closed) return;
			writeSync(fd, `${JSON.stringify(entry)}\n`);
			fsyncSync(fd);
		},
		close() {
			if (closed) return;
			closed = true;
			closeSync(fd);
		},
	};
}

/** The entries of a journal; a last line cut by a crash mid-write is dropped, as that fact never happened. */
export function readDriveJournal(logDir: string): { ok: true; entries: DriveEntry[] } | { ok: false; error: string } {
	let text: string;
	try {
		text = readFileSync(journalPath(logDir), "utf8");
	} catch (error) {
		return { ok: false, error: `cannot read ${journalPath(logDir)}: ${(error as Error).message}` };
	}
	const lines = text.split("\n");
	lines.pop();
	const entries: DriveEntry[] = [];
	for (const [i, line] of lines.entries()) {
		if (!line.trim()) continue;
		try {
			entries.push(JSON.parse(line) as DriveEntry);
		} catch {
			return { ok: false, error: `${journalPath(logDir)}:${i + 1}: a line that is not JSON; the journal was damaged` };
		}
	}
	return { ok: true, entries };
}
