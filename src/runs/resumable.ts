/**
 * Which run a resume picks, and whether it may: only runs this person made here (their seal checks),
 * "the newest" by each run's own recorded start (never by a folder name a repository could choose,
 * such as `9999-12-31_…`), among runs that did not end well.
 */
import { join } from "node:path";
import { readJournal } from "./journal.ts";
import { journalState } from "./replay.ts";
import { listRunFolders } from "./run-folder.ts";
import { runKey, verifyRun } from "./seal.ts";
import { readSnapshot, type Snapshot } from "./snapshot.ts";

/** A run folder whose seal checked, with its snapshot as sealed. */
export type SealedRun = { ok: true; runDir: string; snapshot: Snapshot } | { ok: false; error: string };

/** The run at `runDir` if this person made it here; otherwise why it is refused. */
export function sealedRun(runDir: string, keyDir?: string): SealedRun {
	const key = runKey(keyDir);
	if (!key.ok) return { ok: false, error: key.error };
	const verified = verifyRun(key.key, runDir);
	if (!verified.ok) return { ok: false, error: `refused to resume: ${verified.why}` };
	const snap = readSnapshot(runDir, verified.snapshot);
	return snap.ok ? { ok: true, runDir, snapshot: snap.value } : { ok: false, error: snap.error };
}

/** The newest run under `home` (by its snapshot's `createdAt`) that is sealed and did not end well. */
export function newestResumable(home: string, keyDir?: string): { runDir?: string; skipped: number } {
	let best: { runDir: string; at: string } | undefined;
	let skipped = 0;
	for (const dir of listRunFolders(home)) {
		const run = sealedRun(dir, keyDir);
		if (!run.ok) {
			skipped++;
			continue;
		}
		const j = readJournal(join(dir, "journal.jsonl"));
		if (!j.ok || journalState(j.entries).end?.ok) continue;
		const at = String(run.snapshot.createdAt);
		if (!best || at > best.at) best = { runDir: dir, at };
	}
	return { ...(best ? { runDir: best.runDir } : {}), skipped };
}

/**
 * The newest run under `home` whose seal checks, however it ended: what a command that reads "the run I
 * just made" (`pi-flows report`) takes, never a folder a repository shipped. Folders skipped are counted.
 */
export function newestSealed(home: string, keyDir?: string): { runDir?: string; skipped: number } {
	let best: { runDir: string; at: string } | undefined;
	let skipped = 0;
	for (const dir of listRunFolders(home)) {
		const run = sealedRun(dir, keyDir);
		if (!run.ok) {
			skipped++;
			continue;
		}
		const at = String(run.snapshot.createdAt);
		if (!best || at > best.at) best = { runDir: dir, at };
	}
	return { ...(best ? { runDir: best.runDir } : {}), skipped };
}
