/**
 * The test helpers' lock: a lock whose holder was killed is taken at once, one held by a live process is
 * waited for, and the work runs under it exactly once per call.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { underFolderLock } from "./folder-lock.ts";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has: one that ran and ended. */
function deadPid(): number {
	const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
	return Number(ended.stdout);
}

describe("underFolderLock", () => {
	it("takes a lock left by a process that has ended at once, not after the stale age", () => {
		dir = mkdtempSync(join(tmpdir(), "pi-flows-lock-"));
		const lock = join(dir, "held.lock");
		mkdirSync(lock);
		writeFileSync(join(lock, "pid"), String(deadPid()));
		const started = Date.now();
		const seen = underFolderLock(lock, 600_000, () => readFileSync(join(lock, "pid"), "utf8"));
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(seen).toBe(String(process.pid));
		expect(existsSync(lock)).toBe(false);
	});

	it("waits for a live holder and runs once it lets go", () => {
		dir = mkdtempSync(join(tmpdir(), "pi-flows-lock-"));
		const lock = join(dir, "held.lock");
		mkdirSync(lock);
		// The holder is another process, alive while this one blocks in the lock's wait, and lets go after 800 ms.
		const holder = spawn(process.execPath, [
			"-e",
			`setTimeout(() => require("node:fs").rmSync(${JSON.stringify(lock)}, { recursive: true, force: true }), 800)`,
		]);
		writeFileSync(join(lock, "pid"), String(holder.pid));
		const started = Date.now();
		let ran = 0;
		underFolderLock(lock, 600_000, () => ran++);
		expect(Date.now() - started).toBeGreaterThanOrEqual(500);
		expect(ran).toBe(1);
	});
});
