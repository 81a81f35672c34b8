/**
 * Which run a run reuses from, on the run folder backend: `--reuse last` (the newest run of the same flow
 * in this project, by its own recorded start), or a run named by its folder. Only a run this person made
 * here is read, its seal checked as a resume checks it: a run folder copied in from elsewhere or changed
 * since would put its outputs into a new run unseen (docs/security.md).
 *
 *   reuseFromFolder("/p/.pi/runs/2026-…-explore") → { ok: true, source }   // its sealed journal lines only
 *   findRun("last", home, "explore")             → { ok: true, runDir: "/p/.pi/runs/2026-…-explore" }
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
	type JournalEntry,
	listRunFolders,
	readJournal,
	readSnapshot,
	runKey,
	type Snapshot,
	verifyRun,
} from "../runs/index.ts";
import { reuseSource, type SourceOptions } from "./source.ts";

/** A reuse source opened, or why not. */
export type Opened =
	| { ok: true; source: ReturnType<typeof reuseSource>; runDir: string }
	| { ok: false; error: string };

/** A sealed run folder read: its journal up to its last sealed line, and its snapshot. */
export type ReadRun = { ok: true; entries: JournalEntry[]; snapshot: Snapshot } | { ok: false; error: string };

/** Reads a run folder for reuse, its seal checked: lines past the seal were not written by this person's run. */
export function readRun(runDir: string, keyDir?: string): ReadRun {
	const key = runKey(keyDir);
	if (!key.ok) return { ok: false, error: key.error };
	const verified = verifyRun(key.key, runDir);
	if (!verified.ok) return { ok: false, error: `refused to reuse ${runDir}: ${verified.why}` };
	const snap = readSnapshot(runDir, verified.snapshot);
	if (!snap.ok) return { ok: false, error: snap.error };
	const journal = readJournal(join(runDir, "journal.jsonl"));
	if (!journal.ok) return { ok: false, error: journal.error };
	return { ok: true, entries: journal.entries.slice(0, verified.lines), snapshot: snap.value };
}

/** The source of a sealed run folder. */
export function reuseFromFolder(runDir: string, keyDir?: string, options: SourceOptions = {}): Opened {
	const read = readRun(runDir, keyDir);
	if (!read.ok) return read;
	return { ok: true, runDir, source: reuseSource(read.entries, runDir, options) };
}

/**
 * The run folder `--reuse` names: `last` (or nothing) is the newest sealed run of `flow` under `home`;
 * anything else a folder (absolute, from `cwd`, or a name under `home`).
 */
export function findRun(
	named: string | undefined,
	home: string,
	flow: string,
	cwd: string,
	keyDir?: string,
): { ok: true; runDir: string } | { ok: false; error: string } {
	if (named === undefined || named === "last") {
		const key = runKey(keyDir);
		if (!key.ok) return { ok: false, error: key.error };
		let best: { runDir: string; at: string } | undefined;
		for (const dir of listRunFolders(home)) {
			const v = verifyRun(key.key, dir);
			if (!v.ok) continue;
			const snap = readSnapshot(dir, v.snapshot);
			if (!snap.ok || snap.value.flow.name !== flow) continue;
			const at = String(snap.value.createdAt);
			if (!best || at > best.at) best = { runDir: dir, at };
		}
		return best
			? { ok: true, runDir: best.runDir }
			: { ok: false, error: `no earlier run of ${flow} made here to reuse (under ${home})` };
	}
	for (const dir of [resolve(cwd, named), join(home, basename(named))]) {
		if (existsSync(join(dir, "snapshot.json")) && statSync(dir).isDirectory()) return { ok: true, runDir: dir };
	}
	return { ok: false, error: `no run folder ${named} (give a folder under ${home}, or \`last\`)` };
}
