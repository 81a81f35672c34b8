/**
 * One process runs a run folder at a time. The lock file holds the pid, the host and the start time; it
 * is created exclusively. A lock whose process is gone is stale: it is reported, and taken over only when
 * the caller says so; a live process, or another host, is always refused.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
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
	| { ok: true; release(): void }
	| { ok: false; reason: "live" | "other-host" | "stale"; info: LockInfo; message: string };

/** Takes the run folder's lock. `takeStale` takes over a lock whose process is gone. */
export function acquireLock(runDir: string, options: { takeStale?: boolean } = {}): LockOutcome {
	const path = join(runDir, "lock.json");
	const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
	const write = (): LockOutcome => {
		const fd = openSync(path, "wx");
		writeSync(fd, JSON.stringify(mine));
		closeSync(fd);
		let released = false;
		return {
			ok: true,
			release() {
				if (released) return;
				released = true;
				rmSync(path, { force: true });
			},
		};
	};
	try {
		return write();
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
	let info: LockInfo;
	try {
		info = JSON.parse(readFileSync(path, "utf8")) as LockInfo;
	} catch {
		info = { pid: 0, host: "?", startedAt: "?" };
	}
	if (info.host !== mine.host) {
		return { ok: false, reason: "other-host", info, message: `the run is locked by pid ${info.pid} on ${info.host}; if that run is over, remove ${path}` };
	}
	if (alive(info.pid)) return { ok: false, reason: "live", info, message: `the run is in use by pid ${info.pid} (started ${info.startedAt})` };
	if (!options.takeStale) {
		return { ok: false, reason: "stale", info, message: `the run's lock is stale (pid ${info.pid}, started ${info.startedAt}, is gone); resume with --take-lock to take it over` };
	}
	rmSync(path, { force: true });
	return write();
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
