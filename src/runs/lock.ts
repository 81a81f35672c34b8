/**
 * One process runs a run folder at a time. The lock file holds the pid, the host and the start time; it
 * is created exclusively. A lock on this host whose process is gone is dead: it is taken over without
 * asking, and the taker says so in one line. A lock held by a live process, or by another host (whose
 * processes this one cannot see), is refused unless the caller forces it (`--take-lock`). A lock file
 * that is not a lock at all (not JSON: a crash mid-write, a hand edit) is treated as dead and said once.
 *
 * Two processes taking over the same dead lock at once must not both win: a takeover happens only while
 * holding `lock.json.take`, created exclusively, and only if the lock file still says what the taker read.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** What a lock file says. */
export interface LockInfo {
	pid: number;
	host: string;
	startedAt: string;
}

/** Holding the lock, or why not. */
export type LockOutcome =
	| { ok: true; release(): void /** One line when a dead or forced lock was taken over. */; note?: string }
	| { ok: false; reason: "live" | "other-host"; info: LockInfo; message: string };

/** Options of {@link acquireLock}. */
export interface LockOptions {
	/** Takes a lock held by a live process or another host (`--take-lock`). Default: false. */
	force?: boolean;
}

const ATTEMPTS = 3;

/** Takes the run folder's lock. */
export function acquireLock(runDir: string, options: LockOptions = {}): LockOutcome {
	const path = join(runDir, "lock.json");
	const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
	for (let attempt = 1; ; attempt++) {
		const fresh = create(path, mine);
		if (fresh) return fresh;
		const raw = readOrUndefined(path);
		// Gone between our create and our read: its holder released it; try again.
		if (raw === undefined) continue;
		const info = parse(raw);
		let why: string;
		if (!info) why = `${path} was not a lock (not JSON); it was replaced`;
		else if (info.host !== mine.host) {
			if (!options.force)
				return {
					ok: false,
					reason: "other-host",
					info,
					message: `the run is locked by pid ${info.pid} on ${info.host}; if that run is over there, resume with --take-lock`,
				};
			why = `took over the lock of pid ${info.pid} on ${info.host} (--take-lock)`;
		} else if (alive(info.pid)) {
			if (!options.force)
				return {
					ok: false,
					reason: "live",
					info,
					message: `the run is in use by pid ${info.pid} (started ${info.startedAt}); stop it first, or resume with --take-lock if it is not running this run`,
				};
			why = `took over the lock of live pid ${info.pid} (--take-lock)`;
		} else why = `took over the lock of pid ${info.pid} (started ${info.startedAt}), which is gone`;
		const taken = takeOver(path, raw, mine);
		if (taken === "busy") {
			return {
				ok: false,
				reason: "live",
				info: info ?? { pid: 0, host: "?", startedAt: "?" },
				message: "another process is taking over this run's lock right now",
			};
		}
		if (taken) return { ...taken, note: why };
		if (attempt >= ATTEMPTS)
			return {
				ok: false,
				reason: "live",
				info: info ?? { pid: 0, host: "?", startedAt: "?" },
				message: "the run's lock keeps changing hands; another process is resuming it",
			};
	}
}

/** Creates the lock file exclusively, or undefined when one exists. */
function create(path: string, mine: LockInfo): { ok: true; release(): void } | undefined {
	let fd: number;
	try {
		fd = openSync(path, "wx");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
		throw error;
	}
	try {
		writeSync(fd, JSON.stringify(mine));
	} finally {
		closeSync(fd);
	}
	let released = false;
	return {
		ok: true,
		release() {
			if (released) return;
			released = true;
			// Only our own lock is removed: a lock taken over from us (--take-lock) belongs to its taker.
			const now = parse(readOrUndefined(path) ?? "");
			if (now && now.pid === mine.pid && now.host === mine.host && now.startedAt === mine.startedAt)
				rmSync(path, { force: true });
		},
	};
}

/**
 * Replaces the lock file that read `raw`, under the takeover mutex. `busy`: another taker holds the
 * mutex; undefined: the lock changed meanwhile (look again).
 */
function takeOver(path: string, raw: string, mine: LockInfo): { ok: true; release(): void } | "busy" | undefined {
	const mutex = `${path}.take`;
	let fd: number;
	try {
		fd = openSync(mutex, "wx");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		// A taker that died mid-takeover leaves its mutex: a dead one is cleared, and the caller tries again.
		const holder = parse(readOrUndefined(mutex) ?? "");
		if (holder && holder.host === mine.host && !alive(holder.pid)) {
			rmSync(mutex, { force: true });
			return undefined;
		}
		return "busy";
	}
	try {
		writeSync(fd, JSON.stringify(mine));
		closeSync(fd);
		if (readOrUndefined(path) !== raw) return undefined;
		rmSync(path, { force: true });
		return create(path, mine);
	} finally {
		rmSync(mutex, { force: true });
	}
}

/**
 * Who holds a run folder's lock now, for those who watch a run rather than take it (the web view, MCP):
 * its holder, and whether that process is alive (undefined on another host, whose processes this one
 * cannot see). Undefined when no lock is held or the file is not a lock.
 */
export function lockHolder(runDir: string): (LockInfo & { alive: boolean | undefined }) | undefined {
	const info = parse(readOrUndefined(join(runDir, "lock.json")) ?? "");
	if (!info) return undefined;
	return { ...info, alive: info.host === hostname() ? alive(info.pid) : undefined };
}

function readOrUndefined(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

function parse(raw: string): LockInfo | undefined {
	try {
		const v = JSON.parse(raw) as Partial<LockInfo>;
		if (v && typeof v === "object" && typeof v.pid === "number" && typeof v.host === "string")
			return { pid: v.pid, host: v.host, startedAt: String(v.startedAt ?? "?") };
	} catch {
		// Not JSON (torn mid-write, or not ours) reads as no holder: a lock is replaced (and the note says so),
		// a release leaves a file it cannot tell is its own, and a takeover mutex is treated as busy.
	}
	return undefined;
}

function alive(pid: number): boolean {
	if (!pid) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
