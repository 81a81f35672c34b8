/**
 * Run folders: one per run under the project's `.pi/runs/` (configurable), named by time and flow, so
 * `ls` sorts them and a person can tell them apart.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { unsafeWrite } from "../fs-safe/index.ts";

/**
 * Written first into every run folder: git ignores the folder whole (this file included), wherever the
 * folder lives and whatever the repository's own `.gitignore` says, so `diff`, copies and commits never
 * read the run's journal and transcripts (every tool result, whatever secret an agent read).
 */
export const RUN_GITIGNORE = "# pi-flows: a run folder is the person's record, never the repository's\n*\n";

/** The default home of run folders. */
export function runsHome(cwd: string, configured?: string): string {
	return resolve(cwd, configured ?? join(".pi", "runs"));
}

/**
 * Makes a new run folder, ignored by git from its first moment. With `project`, a home inside the
 * project (the default `.pi/runs`) must resolve inside it: a repository whose `.pi/runs` is a link out
 * of it is refused (thrown: the caller turns it into a refusal before anything runs).
 */
export function newRunFolder(home: string, flow: string, now = new Date(), project?: string): string {
	if (project && !relative(resolve(project), resolve(home)).startsWith("..")) {
		const unsafe = unsafeWrite(join(home, "run"), [project]);
		if (unsafe) throw new Error(`the runs folder is not the project's own: ${unsafe}`);
	}
	const stamp = now.toISOString().replace(/[:.]/g, "-").replace("T", "_").replace("Z", "");
	let dir = join(home, `${stamp}-${flow}`);
	for (let n = 2; existsSync(dir); n++) dir = join(home, `${stamp}-${flow}-${n}`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, ".gitignore"), RUN_GITIGNORE, { flag: "wx" });
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
