/**
 * One lock between the test files of a run (and between runs of one checkout), for work that must happen
 * once: packing the tarball, building the CLI. A folder is the lock, since `mkdir` either makes it or
 * fails, on every file system. The holder writes its pid into the folder, so a lock left by a killed run
 * is taken at once (its holder is gone) rather than after `staleMs`, which still covers a lock with no
 * pid (killed between the two writes) or a pid the system has given to another process since.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Runs `work` holding the lock folder `lock`, waiting (synchronously, as the callers are) for its holder. */
export function underFolderLock<T>(lock: string, staleMs: number, work: () => T): T {
	mkdirSync(dirname(lock), { recursive: true });
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			const held = statSync(lock, { throwIfNoEntry: false });
			if (held && (Date.now() - held.mtimeMs > staleMs || holderIsGone(lock, held.mtimeMs))) {
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
		}
	}
	writeFileSync(join(lock, "pid"), String(process.pid));
	try {
		return work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/**
 * Whether the process that took `lock` has ended. A lock younger than a second may not have its pid yet,
 * so it counts as held; an older one without a pid was left between the two writes.
 */
function holderIsGone(lock: string, madeAt: number): boolean {
	let pid: number;
	try {
		pid = Number(readFileSync(join(lock, "pid"), "utf8"));
	} catch {
		return Date.now() - madeAt > 1_000;
	}
	if (!Number.isInteger(pid) || pid <= 0) return Date.now() - madeAt > 1_000;
	try {
		process.kill(pid, 0);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ESRCH";
	}
}
