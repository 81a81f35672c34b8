/**
 * The tree a visit saw, as git hashes it, and a visit's change to it as a pair of trees and the patch
 * between them: what reuse across runs compares and writes again (docs/runs.md, "Reuse"). A scratch index
 * holds the working tree as it stands (committed, staged, unstaged and untracked files; ignored ones and
 * the paths left out dropped), so the user's staging is never touched; `git write-tree` names it. A port
 * keeps its scratch index between trees, so a tree after the first costs two git processes.
 *
 * The same tree, whole (nothing left out), is what a run and a writing visit start from: a run records it
 * so `commit` takes only what the run changed, and a visit that may write records it so a rerun of an
 * in-doubt visit starts from exactly that tree ({@link snapshotTree}, {@link restoreTree}). A tree object
 * costs one `git add -A` into a scratch index and a `write-tree`, against a worktree copy's full checkout.
 *
 * In: the tree a node works in. Out: values, never exceptions. Example:
 *   `treeOf(cwd, [".pi/flows"])` → `{ ok: true, tree: "4b825dc6…" }`;
 *   `changeBetween(cwd, a, b)` → `{ ok: true, files: ["notes.md"], patch: "diff --git a/notes.md …" }`;
 *   `restoreTree(cwd, start.snapshot.tree, "fix")` → the tree as it was, what it replaced kept under a ref.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { copyFile, mkdir, rename, rm, stat, utimes } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { PATCH } from "./git-copies.ts";
import {
	emptyTree,
	type GitFailure,
	git,
	gitWords,
	headCommit,
	out,
	type ScratchIndex,
	scratchFrom,
} from "./git-exec.ts";

/** The tree as git names it, or why it cannot be named (outside a repository). */
export type TreeOutcome = { ok: true; tree: string } | GitFailure;

/** A change between two trees: the files it touches and the patch that makes one from the other. */
export type ChangeOutcome = { ok: true; files: string[]; patch?: string } | GitFailure;

/** A patch past this is recorded as its pair of trees only: it is written again only where git still has them. */
export const MAX_RECORDED_PATCH = 4 * 1024 * 1024;

const failed = (message: string): GitFailure => ({ ok: false, kind: "unavailable", message });

/** The repository's top, or a failure outside one. */
async function topOf(cwd: string): Promise<{ ok: true; top: string } | GitFailure> {
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	const path = top.ok ? out(top) : "";
	return path ? { ok: true, top: path } : failed(top.ok ? "not a working tree" : gitWords(top));
}

/** A path as the file system names it (links resolved), or as given when it is not there. */
function real(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** `leaveOut` as paths from the top, keeping only those inside it. */
function inside(top: string, cwd: string, leaveOut: readonly string[]): string[] {
	const paths: string[] = [];
	for (const p of leaveOut) {
		const rel = relative(top, real(resolve(cwd, p)));
		if (rel && !rel.startsWith("..") && !isAbsolute(rel)) paths.push(rel.split("\\").join("/"));
	}
	// A path inside another one left out adds nothing (and would make a set that differs from run to run).
	const sorted = [...new Set(paths)].sort();
	return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/** Where a folder's repository is: its top, its git folder and its index file. */
type Where = { ok: true; top: string; gitDir: string; index: string } | GitFailure;

/**
 * The repository around `cwd`, found as git finds it without starting git: the nearest `.git` folder, or a
 * `.git` file naming one (a worktree, a submodule); anything else is asked of git.
 */
async function locate(cwd: string): Promise<Where> {
	for (let dir = real(resolve(cwd)); ; ) {
		const dot = join(dir, ".git");
		try {
			const st = statSync(dot);
			if (st.isDirectory()) return { ok: true, top: dir, gitDir: dot, index: join(dot, "index") };
			const named = /^gitdir:\s*(.+)$/m.exec(readFileSync(dot, "utf8"))?.[1]?.trim();
			if (named) {
				const gitDir = resolve(dir, named);
				return { ok: true, top: dir, gitDir, index: join(gitDir, "index") };
			}
			break;
		} catch {
			const up = dirname(dir);
			if (up === dir) break;
			dir = up;
		}
	}
	const r = await git(cwd, ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "index"]);
	const [top, gitDir, index] = r.ok ? out(r).split("\n") : [];
	return top && gitDir && index
		? { ok: true, top, gitDir, index: resolve(cwd, index) }
		: failed(r.ok ? "not a working tree" : gitWords(r));
}

/** Copies an index file keeping its modification time: git's racy-file rule compares file times to it. */
async function copyIndex(from: string, to: string): Promise<void> {
	const st = await stat(from);
	const tmp = `${to}.${process.pid}.${Math.random().toString(36).slice(2)}`;
	await copyFile(from, tmp);
	await utimes(tmp, st.atime, st.mtime);
	await rename(tmp, to);
}

/** A scratch index kept for one repository and one set of paths left out, and the calls waiting on it. */
interface Kept {
	top: string;
	drop: string[];
	index: ScratchIndex;
	/** Where it is kept between runs, in the repository's git folder. */
	saved: string;
	queue: Promise<unknown>;
}

/** Scratch folders in use, removed when the process exits (a scratch index is ours alone). */
const IN_USE = new Set<string>();
let cleaning = false;

function inUse(index: ScratchIndex): void {
	IN_USE.add(dirname(index.env.GIT_INDEX_FILE));
	if (cleaning) return;
	cleaning = true;
	process.once("exit", () => {
		for (const dir of IN_USE) rmSync(dir, { recursive: true, force: true });
	});
}

/**
 * Hashes trees. A repository's first tree starts from the scratch index an earlier run kept in its git
 * folder (`pi-flows/tree-<paths left out>.index`), else from a copy of its own index with the paths left out
 * dropped, so `git add` only rehashes the files whose stat data changed; each tree is then one `git add -A`
 * (those paths excluded) and one `git write-tree`, and the scratch index is kept again for the next run.
 * Calls on one scratch index wait for each other; two processes at once each keep their own, the last one
 * written is the one kept (any of them is a valid starting point: git checks every file's stat against it).
 */
export function treeHasher(): (cwd: string, leaveOut?: readonly string[]) => Promise<TreeOutcome> {
	const places = new Map<string, Promise<Where>>();
	const scratches = new Map<string, Promise<Kept | GitFailure>>();
	const whereOf = (cwd: string): Promise<Where> => {
		let w = places.get(cwd);
		if (!w) places.set(cwd, (w = locate(cwd)));
		return w;
	};
	const scratchOf = (where: Extract<Where, { ok: true }>, drop: string[]): Promise<Kept | GitFailure> => {
		const key = `${where.top}\u0000${drop.join("\u0000")}`;
		let k = scratches.get(key);
		if (!k) {
			k = (async (): Promise<Kept | GitFailure> => {
				const name = createHash("sha1").update(drop.join("\u0000")).digest("hex").slice(0, 16);
				const saved = join(where.gitDir, "pi-flows", `tree-${name}.index`);
				const earlier = existsSync(saved);
				let scratch: ScratchIndex;
				try {
					scratch = await scratchFrom(earlier ? saved : where.index);
				} catch (error) {
					return failed(`cannot make a scratch index: ${(error as Error).message}`);
				}
				inUse(scratch);
				if (drop.length && !earlier) {
					const rm = await git(where.top, ["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--", ...drop], {
						env: scratch.env,
					});
					if (!rm.ok) return failed(gitWords(rm));
				}
				return { top: where.top, drop, index: scratch, saved, queue: Promise.resolve() };
			})();
			scratches.set(key, k);
			// A scratch index that could not be made is tried again next time.
			void k.then((r) => "ok" in r && scratches.delete(key));
		}
		return k;
	};
	return async (cwd, leaveOut = []) => {
		const where = await whereOf(cwd);
		if (!where.ok) return where;
		const k = await scratchOf(where, inside(where.top, cwd, leaveOut));
		if ("ok" in k) return k;
		const hash = async (): Promise<TreeOutcome> => {
			const excluded = k.drop.map((p) => `:(exclude,literal)${p}`);
			const add = await git(k.top, ["add", "-A", "--", ".", ...excluded], { env: k.index.env });
			if (!add.ok) return failed(gitWords(add));
			const written = await git(k.top, ["write-tree"], { env: k.index.env });
			if (!written.ok) return failed(gitWords(written));
			// Kept for the next run; a repository whose git folder refuses it only costs that run a copy.
			await mkdir(dirname(k.saved), { recursive: true })
				.then(() => copyIndex(k.index.env.GIT_INDEX_FILE, k.saved))
				.catch(() => undefined);
			return { ok: true, tree: out(written) };
		};
		const next = k.queue.then(hash, hash);
		k.queue = next.catch(() => undefined);
		return next;
	};
}

/**
 * The tree of `cwd`'s working tree with `leaveOut` (files or folders, from `cwd`) dropped: the runs folder
 * and the definition files, which are parts of a visit's identity of their own. A one-off: a port keeps a
 * {@link treeHasher}, cheaper from its second tree on.
 */
export function treeOf(cwd: string, leaveOut: readonly string[] = []): Promise<TreeOutcome> {
	return treeHasher()(cwd, leaveOut);
}

/**
 * A file's text as a tree held it (a visit's identity names the tree it started from), or undefined when
 * the tree has no such file, git cannot read it, or it is larger than `maxBytes`.
 */
export async function fileInTree(
	cwd: string,
	tree: string,
	path: string,
	maxBytes = 8 * 1024 * 1024,
): Promise<string | undefined> {
	const read = await git(cwd, ["cat-file", "blob", `${tree}:${path}`], { maxBuffer: maxBytes });
	return read.ok ? read.stdout.toString("utf8") : undefined;
}

/** The files that differ between two trees, in git's order. */
export async function filesBetween(cwd: string, before: string, after: string): Promise<string[] | GitFailure> {
	const listed = await git(cwd, ["diff-tree", "-r", "--name-only", "--no-renames", "-z", before, after]);
	if (!listed.ok) return failed(gitWords(listed));
	return listed.stdout.toString("utf8").split("\0").filter(Boolean);
}

/** What a visit changed: the files and the patch from `before` to `after` (no patch past {@link MAX_RECORDED_PATCH}). */
export async function changeBetween(cwd: string, before: string, after: string): Promise<ChangeOutcome> {
	const files = await filesBetween(cwd, before, after);
	if (!Array.isArray(files)) return files;
	const patch = await git(cwd, [...PATCH, before, after], { maxBuffer: MAX_RECORDED_PATCH });
	if (!patch.ok && !patch.overflow) return failed(gitWords(patch));
	return { ok: true, files, ...(patch.ok ? { patch: patch.stdout.toString("utf8") } : {}) };
}

/**
 * Writes a recorded change again in the working tree of `cwd` (the index is left alone): the patch when
 * there is one, else the change between the pair of trees, if this repository still has them. All or
 * nothing: `git apply` checks every hunk before it writes any. `reverse` takes a change written back out.
 */
export async function applyChange(
	cwd: string,
	change: { before: string; after: string; patch?: string },
	reverse = false,
): Promise<{ ok: true } | GitFailure> {
	const where = await topOf(cwd);
	if (!where.ok) return where;
	let patch = change.patch;
	if (patch === undefined) {
		const made = await git(where.top, [...PATCH, change.before, change.after]);
		if (!made.ok) return failed(`the recorded trees are not in this repository: ${gitWords(made)}`);
		patch = made.stdout.toString("utf8");
	}
	if (!patch) return { ok: true };
	const applied = await git(where.top, ["apply", "--binary", "--whitespace=nowarn", ...(reverse ? ["-R"] : []), "-"], {
		input: patch,
	});
	return applied.ok ? { ok: true } : failed(gitWords(applied));
}

/** A tree as it stood: its tree object, and the commit HEAD named then (none on an unborn branch). */
export interface TreeSnapshot {
	tree: string;
	head?: string;
}

/** Where the tree a restore replaced is kept, so nothing a person wrote is lost without a copy. */
export const KEPT_REF_PREFIX = "refs/pi-flows/kept/";

/** The working tree, whole, as one tree object, and HEAD. */
export async function snapshotTree(cwd: string): Promise<{ ok: true; snapshot: TreeSnapshot } | GitFailure> {
	const tree = await treeOf(cwd);
	if (!tree.ok) return tree;
	const head = await headCommit(cwd);
	return { ok: true, snapshot: { tree: tree.tree, ...(head ? { head } : {}) } };
}

/** The paths two tree-ish objects differ in (added, deleted or changed; renames as both paths). */
export async function pathsBetween(
	cwd: string,
	from: string,
	to: string,
): Promise<{ ok: true; paths: string[] } | GitFailure> {
	const files = await filesBetween(cwd, from, to);
	return Array.isArray(files) ? { ok: true, paths: files } : files;
}

/** The paths the tree differs in from HEAD as it was then: what was untracked or modified at that point. */
export async function dirtyIn(
	cwd: string,
	snapshot: TreeSnapshot,
): Promise<{ ok: true; paths: string[] } | GitFailure> {
	const base = snapshot.head ?? (await emptyTree(cwd));
	if (!base) return failed("cannot tell what HEAD was");
	return pathsBetween(cwd, base, snapshot.tree);
}

/** What a restore did: the paths it put back, and the ref keeping the tree it replaced (when it changed any). */
export type RestoreOutcome = { ok: true; restored: string[]; kept?: string } | GitFailure;

/**
 * Puts the working tree back to `tree`: every path that differs now is rewritten from it, or removed when
 * `tree` lacks it. The index is left alone. What was there is first kept as a commit under
 * `refs/pi-flows/kept/<label>` (`git restore --source=<ref> -- <path>` brings a file back).
 */
export async function restoreTree(cwd: string, tree: string, label: string): Promise<RestoreOutcome> {
	const now = await snapshotTree(cwd);
	if (!now.ok) return now;
	const changed = await pathsBetween(cwd, tree, now.snapshot.tree);
	if (!changed.ok) return changed;
	if (!changed.paths.length) return { ok: true, restored: [] };
	const kept = await git(cwd, [
		"commit-tree",
		now.snapshot.tree,
		"-m",
		`pi-flows: the tree before ${label} was put back`,
	]);
	if (!kept.ok) return failed(gitWords(kept));
	const ref = `${KEPT_REF_PREFIX}${label.replace(/[^A-Za-z0-9._-]+/g, "-")}-${Date.now()}`;
	const named = await git(cwd, ["update-ref", ref, out(kept)]);
	if (!named.ok) return failed(gitWords(named));
	const listed = await git(cwd, ["ls-tree", "-r", "-z", "--name-only", tree]);
	if (!listed.ok) return failed(gitWords(listed));
	const inTree = new Set(listed.stdout.toString("utf8").split("\0").filter(Boolean));
	// Paths from diff and ls-tree are the repository's top's, so the restore runs there.
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	if (!top.ok) return failed(gitWords(top));
	const back = changed.paths.filter((p) => inTree.has(p));
	if (back.length) {
		const restored = await git(
			out(top),
			["restore", `--source=${tree}`, "--worktree", "--pathspec-from-file=-", "--pathspec-file-nul"],
			{ input: back.join("\0") },
		);
		if (!restored.ok) return failed(gitWords(restored));
	}
	for (const p of changed.paths.filter((p) => !inTree.has(p))) await rm(join(out(top), p), { force: true });
	return { ok: true, restored: changed.paths, kept: ref };
}
