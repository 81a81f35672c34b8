/**
 * The driver's journal: one JSON line per fact of a chain (a life started, a turn started, a handoff
 * document saved, a turn ended, the chain ended), fsynced as it is written, so a driver killed at any
 * instant is restarted from what it had recorded. A pointer file, `.pi/drive/current.json`, names the
 * journal of the project's latest drive, so `pi-flows drive TASK.md` run again finds it. Pointer and
 * journal are sealed with the person's run key, as a run folder is, since `.pi/drive` is the repository's.
 *
 *   .pi/drive/current.json              { "logDir": "/…/.pi/drive/2026-…", "taskSha": "…", "mac": "…" }
 *   .pi/drive/2026-…/drive.json          { "v": 1, "taskSha": "…", "createdAt": "…" }   (what the seal starts on)
 *   .pi/drive/2026-…/journal.jsonl       {"type":"turn_start","n":2,…}\n{"type":"handoff","n":2,…}\n…
 *   .pi/drive/2026-…/seal                one HMAC over drive.json, then one chained HMAC per journal line
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { isLink, safeAppendFd, safeMkdir, safeWrite } from "../fs-safe/index.ts";
import { journalSealer, mac, same, type SealKind, sealSnapshot, trimJournal, verifyRun } from "../runs/index.ts";
import { redactedJson } from "../secrets/index.ts";
import { real } from "../trust/index.ts";
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

/**
 * The drive's records live in the repository's `.pi/drive`, which a clone can ship: they are read only when
 * their seal (the person's run key, src/runs/seal.ts) shows this person's pi-flows made them in this folder,
 * and written only with the safe writers (src/fs-safe), inside their roots and never through a link.
 */
export const DRIVE_SEAL: SealKind = { domain: "pi-flows drive", head: "drive.json", what: "drive" };

const pointerMac = (key: Buffer, cwd: string, p: DrivePointer) =>
	mac(key, "pi-flows drive pointer", real(cwd), p.logDir, p.taskSha);

/** The pointer as read: none, one this person's pi-flows wrote here, or one it did not (and why). */
export type PointerRead = { kind: "none" } | { kind: "ok"; pointer: DrivePointer } | { kind: "untrusted"; why: string };

/** Reads the pointer and checks its seal. */
export function readPointer(cwd: string, key: Buffer): PointerRead {
	const path = currentPointerPath(cwd);
	if (isLink(path)) return { kind: "untrusted", why: "it is a symbolic link" };
	let value: Partial<DrivePointer & { mac: string }>;
	try {
		value = JSON.parse(readFileSync(path, "utf8")) as typeof value;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "none" };
		return { kind: "untrusted", why: "it is not a pointer pi-flows writes" };
	}
	const { logDir, taskSha, mac: sealed } = value;
	if (typeof logDir !== "string" || typeof taskSha !== "string")
		return { kind: "untrusted", why: "it is not a pointer pi-flows writes" };
	if (typeof sealed !== "string" || !same(sealed, pointerMac(key, cwd, { logDir, taskSha })))
		return { kind: "untrusted", why: "its seal does not check: another person, another folder, or an edit made it" };
	return { kind: "ok", pointer: { logDir, taskSha } };
}

/** Points the project at a drive, sealed: a safe temp file and rename, so the pointer is whole or the old one. */
export function writePointer(cwd: string, pointer: DrivePointer, key: Buffer, roots: readonly string[]): void {
	const path = currentPointerPath(cwd);
	safeMkdir(dirname(path), roots);
	const sealed = { ...pointer, mac: pointerMac(key, cwd, pointer) };
	safeWrite(path, `${JSON.stringify(sealed, null, 2)}\n`, roots);
}

/** The journal file of a drive's log folder. */
export function journalPath(logDir: string): string {
	return join(logDir, "journal.jsonl");
}

/** Appends facts; each is on disk (fsync), and sealed, before `append` returns. */
export interface DriveJournal {
	append(entry: DriveEntry): void;
	close(): void;
}

/**
 * Starts a new drive's record in `logDir`: its `drive.json` (the task's identity) and the seal over it.
 * Returns the seal chain's first link, for {@link openDriveJournal}.
 */
export function startDriveRecord(logDir: string, sha: string, key: Buffer, roots: readonly string[]): string {
	const text = `${JSON.stringify({ v: 1, taskSha: sha, createdAt: new Date().toISOString() })}\n`;
	safeWrite(join(logDir, DRIVE_SEAL.head), text, roots);
	return sealSnapshot(key, logDir, text, DRIVE_SEAL);
}

/** Opens (or creates) the journal of `logDir` for appending, sealing each line after `last`. */
export function openDriveJournal(
	logDir: string,
	seal: { key: Buffer; last: string },
	roots: readonly string[],
): DriveJournal {
	const fd = safeAppendFd(journalPath(logDir), roots);
	const sealer = journalSealer(seal.key, logDir, seal.last);
	let closed = false;
	return {
		append(entry) {
			if (closed) return;
			const line = redactedJson(entry);
			writeSync(fd, `${line}\n`);
			fsyncSync(fd);
			sealer.seal(line, true);
		},
		close() {
			if (closed) return;
			closed = true;
			closeSync(fd);
			sealer.close();
		},
	};
}

/**
 * The sealed entries of a drive's journal and the seal chain's end, or why the record is not this person's.
 * Lines a crash left without their seal are cut off first, as facts that never happened.
 */
export function readSealedDriveJournal(
	logDir: string,
	key: Buffer,
): { ok: true; entries: DriveEntry[]; last: string } | { ok: false; why: string } {
	const verified = verifyRun(key, logDir, DRIVE_SEAL);
	if (!verified.ok) return { ok: false, why: verified.why };
	trimJournal(logDir, verified.lines);
	const read = readDriveJournal(logDir);
	if (!read.ok && !/ENOENT/.test(read.error)) return { ok: false, why: read.error };
	return { ok: true, entries: read.ok ? read.entries : [], last: verified.last };
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
