/**
 * One lock between the test files of a run (and between runs of one checkout), for work that must happen
 * once: packing the tarball, building the CLI. A folder is the lock, since `mkdir` either makes it or
 * fails, on every file system; a lock older than `staleMs` is taken to be left by a killed process.
 */
import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Runs `work` holding the lock folder `lock`, waiting (synchronously, as the callers are) for its holder. */
export function underFolderLock<T>(lock: string, staleMs: number, work: () => T): T {
	mkdirSync(dirname(lock), { recursive: true });
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			const held = statSync(lock, { throwIfNoEntry: false });
			if (held && Date.now() - held.mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true });
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
		}
	}
	try {
		return work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}
