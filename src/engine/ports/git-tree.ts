/**
 * The tree as git objects: a snapshot of the working tree (untracked files included, ignored ones not) as
 * one tree object, written through a scratch index so the person's index is never touched; the paths two
 * snapshots differ in; and putting the tree back to a snapshot. A run records the tree it started from (so
 * `commit` takes only what the run changed) and a visit that may write records the tree it started from
 * (so a rerun of an in-doubt visit starts from exactly that tree). A tree object costs one `git add -A`
 * into a scratch index and a `write-tree`, against a worktree copy's full checkout: it is the cheaper.
 *
 *   const start = await snapshotTree(cwd);         // { ok: true, snapshot: { tree: "4b825dc…", head: "9f1c…" } }
 *   await pathsBetween(cwd, start.snapshot.tree, now.snapshot.tree)  // { ok: true, paths: ["src/a.ts"] }
 *   await restoreTree(cwd, start.snapshot.tree)    // the tree as it was; what it replaced kept under a ref
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { emptyTree, type GitFailure, git, gitWords, headCommit, indexOfTree, out } from "./git-exec.ts";

/** A tree as it stood: its tree object, and the commit HEAD named then (none on an unborn branch). */
export interface TreeSnapshot {
	tree: string;
	head?: string;
}

/** Where the tree a restore replaced is kept, so nothing a person wrote is lost without a copy. */
export const KEPT_REF_PREFIX = "refs/pi-flows/kept/";

const fail = (message: string): GitFailure => ({ ok: false, kind: "unavailable", message });

/** The working tree as one tree object, and HEAD. */
export async function snapshotTree(cwd: string): Promise<{ ok: true; snapshot: TreeSnapshot } | GitFailure> {
	const scratch = await indexOfTree(cwd);
	if (!scratch.ok) return scratch;
	try {
		const written = await git(cwd, ["write-tree"], { env: scratch.index.env });
		if (!written.ok) return fail(gitWords(written));
		const head = await headCommit(cwd);
		return { ok: true, snapshot: { tree: out(written), ...(head ? { head } : {}) } };
	} finally {
		await scratch.index.drop();
	}
}

/** The paths two tree-ish objects differ in (added, deleted or changed; renames as both paths). */
export async function pathsBetween(
	cwd: string,
	from: string,
	to: string,
): Promise<{ ok: true; paths: string[] } | GitFailure> {
	const diff = await git(cwd, ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to]);
	if (!diff.ok) return fail(gitWords(diff));
	return { ok: true, paths: diff.stdout.toString("utf8").split("\0").filter(Boolean) };
}

/** The paths the tree differs in from HEAD as it was then: what was untracked or modified at that point. */
export async function dirtyIn(
	cwd: string,
	snapshot: TreeSnapshot,
): Promise<{ ok: true; paths: string[] } | GitFailure> {
	const base = snapshot.head ?? (await emptyTree(cwd));
	if (!base) return fail("cannot tell what HEAD was");
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
	if (!kept.ok) return fail(gitWords(kept));
	const ref = `${KEPT_REF_PREFIX}${label.replace(/[^A-Za-z0-9._-]+/g, "-")}-${Date.now()}`;
	const named = await git(cwd, ["update-ref", ref, out(kept)]);
	if (!named.ok) return fail(gitWords(named));
	const listed = await git(cwd, ["ls-tree", "-r", "-z", "--name-only", tree]);
	if (!listed.ok) return fail(gitWords(listed));
	const inTree = new Set(listed.stdout.toString("utf8").split("\0").filter(Boolean));
	// Paths from diff and ls-tree are the repository's top's, so the restore runs there.
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	if (!top.ok) return fail(gitWords(top));
	const back = changed.paths.filter((p) => inTree.has(p));
	if (back.length) {
		const restored = await git(
			out(top),
			["restore", `--source=${tree}`, "--worktree", "--pathspec-from-file=-", "--pathspec-file-nul"],
			{ input: back.join("\0") },
		);
		if (!restored.ok) return fail(gitWords(restored));
	}
	for (const p of changed.paths.filter((p) => !inTree.has(p))) await rm(join(out(top), p), { force: true });
	return { ok: true, restored: changed.paths, kept: ref };
}
