/**
 * Run folders: one per run under the project's `.pi/runs/` (configurable), named by time and flow, so
 * `ls` sorts them and a person can tell them apart.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** The default home of run folders. */
export function runsHome(cwd: string, configured?: string): string {
	return resolve(cwd, configured ?? join(".pi", "runs"));
}

/** Makes a new run folder. */
export function newRunFolder(home: string, flow: string, now = new Date()): string {
	const stamp = now.toISOString().replace(/[:.]/g, "-").replace("T", "_").replace("Z", "");
	let dir = join(home, `${stamp}-${flow}`);
	for (let n = 2; existsSync(dir); n++) dir = join(home, `${stamp}-${flow}-${n}`);
	mkdirSync(dir, { recursive: true });
	return dir;
}

/** Run folders under `home`, newest first. */
export function listRunFolders(home: string): string[] {
	try {
		return readdirSync(home)
			.map((name) => join(home, name))
			.filter((p) => existsSync(join(p, "snapshot.json")) && statSync(p).isDirectory())
			.sort()
			.reverse();
	} catch {
		// No runs folder yet: no runs.
		return [];
	}
}
