/**
 * Which project a path belongs to. Trust is the person's decision about one repository, so the trust rule
 * must know, for any file it is handed, whose repository it is: this one, a sibling checkout
 * (`../other/.pi/flows/x.md`), a git worktree of this one (pi-flows' own copies for `copies: true` among
 * them), or no repository at all.
 *
 * In: a path and the working folder. Out: the project holding it (its root and its repository's identity,
 * the common git folder every worktree of one repository shares), or none.
 * Example: `projectOf("/src/b/.pi/flows/x.md", "/src/a")` → `{ root: "/src/b", repository: "/src/b/.git" }`;
 * from a worktree `/tmp/pi-flows-copy-1a2b` of `/src/a` → `{ root: "/tmp/pi-flows-copy-1a2b", repository:
 * "/src/a/.git" }`, the same repository as `/src/a`.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";

/** A project: the folder a path's repository is checked out in, and that repository's identity. */
export interface Project {
	/** The working tree's top: the nearest folder holding `.git`, else the working folder (see {@link projectOf}). */
	root: string;
	/** The common git folder (one per repository, whichever worktree); the root itself when there is no git. */
	repository: string;
}

/** The real location of a path (links followed); the path itself when it does not exist. */
export function real(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

/** Whether `path` is `root` or inside it. */
export const within = (root: string, path: string) => path === root || path.startsWith(`${root}${sep}`);

/**
 * The common git folder of the working tree at `top`: `.git` itself, or, for a worktree whose `.git` is a
 * file (`gitdir: <main>/.git/worktrees/<name>`), the folder its `commondir` names.
 */
function repositoryOf(top: string): string {
	const dotGit = join(top, ".git");
	try {
		if (statSync(dotGit).isDirectory()) return real(dotGit);
		const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
		if (!pointer) return real(top);
		const gitdir = resolve(top, pointer[1].trim());
		const common = existsSync(join(gitdir, "commondir"))
			? resolve(gitdir, readFileSync(join(gitdir, "commondir"), "utf8").trim())
			: gitdir;
		return real(common);
	} catch {
		return real(top);
	}
}

/**
 * The project a path belongs to: the nearest ancestor (of its real location) holding `.git`; for a path in
 * no git tree, the working folder's project when the path is inside it (a project need not be a git
 * repository), else the nearest ancestor holding `.pi` below the home folder (an unpacked repository).
 * Undefined for a path of no project: a file of the person's own outside any repository.
 */
export function projectOf(path: string, cwd: string): Project | undefined {
	const at = real(path);
	for (let dir = at; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return { root: dir, repository: repositoryOf(dir) };
		if (dirname(dir) === dir) break;
	}
	const here = real(cwd);
	const cwdProject = gitTop(here) ?? here;
	if (within(cwdProject, at)) return { root: cwdProject, repository: cwdProject };
	const home = real(homedir());
	for (let dir = dirname(at); dir !== home && dirname(dir) !== dir; dir = dirname(dir)) {
		if (existsSync(join(dir, ".pi")) && statSync(join(dir, ".pi")).isDirectory()) return { root: dir, repository: dir };
	}
	return undefined;
}

/** The nearest ancestor of `dir` holding `.git`. */
function gitTop(dir: string): string | undefined {
	for (let d = dir; ; d = dirname(d)) {
		if (existsSync(join(d, ".git"))) return d;
		if (dirname(d) === d) return undefined;
	}
}

/** Whether two projects are one repository (worktrees of one repository are; two clones are not). */
export function sameRepository(a: Project | undefined, b: Project | undefined): boolean {
	return a !== undefined && b !== undefined && a.repository === b.repository;
}
