/**
 * Who holds a run folder's lock, as a watcher reads it (the web view, MCP): the holder and whether its
 * process is alive on this host; another host's process cannot be seen from here, so its life is unknown;
 * no file, or a file that is not a lock, is no holder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock, lockHolder } from "../../src/runs/index.ts";

const dir = mkdtempSync(join(tmpdir(), "pi-flows-lock-holder-"));
const lock = (x: unknown) => writeFileSync(join(dir, "lock.json"), typeof x === "string" ? x : JSON.stringify(x));
/** A pid no process has: one that ran and ended. */
const deadPid = () => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout);

describe("lockHolder", () => {
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("names the holder of a lock taken here, alive, and nobody once it is let go", () => {
		expect(lockHolder(dir)).toBeUndefined();
		const held = acquireLock(dir);
		if (!held.ok) throw new Error(held.message);
		expect(lockHolder(dir)).toMatchObject({ pid: process.pid, host: hostname(), alive: true });
		held.release();
		expect(lockHolder(dir)).toBeUndefined();
	});

	it("says a holder on this host whose process is gone is not alive, and another host's is not known", () => {
		const pid = deadPid();
		lock({ pid, host: hostname(), startedAt: "then" });
		expect(lockHolder(dir)).toEqual({ pid, host: hostname(), startedAt: "then", alive: false });
		lock({ pid: process.pid, host: `not-${hostname()}`, startedAt: "then" });
		expect(lockHolder(dir)).toEqual({
			pid: process.pid,
			host: `not-${hostname()}`,
			startedAt: "then",
			alive: undefined,
		});
	});

	it("reads a file that is not a lock (torn mid-write, or not ours) as no holder", () => {
		for (const text of ["", "{", "[]", '{"pid":"1","host":"h"}']) {
			lock(text);
			expect(lockHolder(dir), text).toBeUndefined();
		}
	});
});
