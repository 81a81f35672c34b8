/**
 * A commit of what the run changed, and nothing else: the paths that differ between the tree the run
 * started from and the tree now, less every path that was untracked or modified before the run began (the
 * person's work in progress is theirs to commit, even where a turn touched it too; those are returned as
 * `left_out`). The commit is made from a scratch index that starts at HEAD and takes exactly those paths,
 * so the person's staging is not committed either; `git commit` runs as usual (hooks judge it), and the
 * real index is then brought up to the new commit for those paths only.
 *
 *   start = snapshotTree(cwd) at the run's start; a turn edits src/a.ts; notes.md was untracked before.
 *   commitSince(cwd, "pi-flows/x", { message, slug, since: start.snapshot })
 *     → { ok: true, committed: true, sha, branch: "pi-flows/x" }   (src/a.ts only; notes.md stays untracked)
 */
import type { CommitOutcome, CommitRequest } from "./git-commit.ts";
import { emptyTree, git, gitWords, headCommit, out, scratchFrom } from "./git-exec.ts";
import { dirtyIn, pathsBetween, snapshotTree, type TreeSnapshot } from "./git-tree.ts";

/** The paths the run changed since `since`, and those of them it must leave out (dirty before it began). */
export async function runChanges(
	cwd: string,
	since: TreeSnapshot,
): Promise<{ ok: true; paths: string[]; leftOut: string[] } | { ok: false; message: string }> {
	const now = await snapshotTree(cwd);
	if (!now.ok) return now;
	const changed = await pathsBetween(cwd, since.tree, now.snapshot.tree);
	if (!changed.ok) return changed;
	const dirty = await dirtyIn(cwd, since);
	if (!dirty.ok) return dirty;
	const before = new Set(dirty.paths);
	return {
		ok: true,
		paths: changed.paths.filter((p) => !before.has(p)),
		leftOut: changed.paths.filter((p) => before.has(p)),
	};
}

/** Commits on `branch` (already opened and checked out) the paths the run changed since `request.since`. */
export async function commitSince(
	cwd: string,
	branch: string,
	request: CommitRequest & { since: TreeSnapshot },
): Promise<CommitOutcome> {
	const fail = (message: string): CommitOutcome => ({ ok: false, kind: "unavailable", message, branch });
	const changes = await runChanges(cwd, request.since);
	if (!changes.ok) return fail(changes.message);
	const leftOut = changes.leftOut.length ? { left_out: changes.leftOut } : {};
	if (!changes.paths.length) return { ok: true, committed: false, branch, ...leftOut };
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	const where = await git(cwd, ["rev-parse", "--git-path", "index"]);
	if (!top.ok || !where.ok) return fail(gitWords(top.ok ? where : top));
	const root = out(top);
	const head = (await headCommit(root)) ?? (await emptyTree(root));
	if (!head) return fail("cannot tell what HEAD is");
	const index = await scratchFrom(undefined);
	try {
		const paths = { input: changes.paths.join("\0") };
		const steps: [string[], { input?: string }][] = [
			[["read-tree", head], {}],
			[["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], paths],
		];
		for (const [args, call] of steps) {
			const done = await git(root, args, { ...call, env: index.env });
			if (!done.ok) return fail(gitWords(done));
		}
		const same = await git(root, ["diff", "--cached", "--quiet", "--no-ext-diff", head], { env: index.env });
		if (same.ok) return { ok: true, committed: false, branch, ...leftOut };
		if (same.code !== 1) return fail(gitWords(same));
		const commit = await git(root, ["commit", "-q", "--cleanup=whitespace", "-F", "-"], {
			input: request.message,
			env: index.env,
		});
		if (!commit.ok) return fail(gitWords(commit));
		// The person's index still holds the old entries of the committed paths: bring those (only) to HEAD.
		const synced = await git(root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], paths);
		if (!synced.ok) return fail(gitWords(synced));
	} finally {
		await index.drop();
	}
	const sha = await headCommit(root);
	return sha
		? { ok: true, committed: true, sha, branch, ...leftOut }
		: fail("the commit was made but HEAD cannot be read");
}
