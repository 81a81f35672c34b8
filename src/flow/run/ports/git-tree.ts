/**
 * The tree a visit saw, as git hashes it, and a visit's change to it as a pair of trees and the patch
 * between them: what reuse across runs compares and writes again (docs/runs.md, "Reuse"). A scratch index
 * holds the working tree as it stands (committed, staged, unstaged and untracked files; ignored ones and
 * the paths left out dropped), so the user's staging is never touched; `git write-tree` names it.
 *
 * In: the tree a node works in. Out: values, never exceptions. Example:
 *   `treeOf(cwd, [".pi/flows"])` → `{ ok: true, tree: "4b825dc6…" }`;
 *   `changeBetween(cwd, a, b)` → `{ ok: true, files: ["notes.md"], patch: "diff --git a/notes.md …" }`.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { PATCH } from "./git-copies.ts";
import { type GitFailure, git, gitWords, indexOfTree, out } from "./git-exec.ts";

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

/** `leaveOut` as paths from the top, keeping only those inside it. */
function inside(top: string, cwd: string, leaveOut: readonly string[]): string[] {
	const paths: string[] = [];
	for (const p of leaveOut) {
		const rel = relative(top, resolve(cwd, p));
		if (rel && !rel.startsWith("..") && !isAbsolute(rel)) paths.push(rel.split("\\").join("/"));
	}
	return [...new Set(paths)];
}

/**
 * The tree of `cwd`'s working tree with `leaveOut` (files or folders, from `cwd`) dropped: the runs folder
 * and the definition files, which are parts of a visit's identity of their own.
 */
export async function treeOf(cwd: string, leaveOut: readonly string[] = []): Promise<TreeOutcome> {
	const where = await topOf(cwd);
	if (!where.ok) return where;
	const scratch = await indexOfTree(where.top);
	if (!scratch.ok) return scratch;
	try {
		const drop = inside(where.top, cwd, leaveOut);
		if (drop.length) {
			const rm = await git(where.top, ["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--", ...drop], {
				env: scratch.index.env,
			});
			if (!rm.ok) return failed(gitWords(rm));
		}
		const written = await git(where.top, ["write-tree"], { env: scratch.index.env });
		return written.ok ? { ok: true, tree: out(written) } : failed(gitWords(written));
	} finally {
		await scratch.index.drop();
	}
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
