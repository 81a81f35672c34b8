/**
 * The `git` port: everything a flow asks of git (the repository's root, the `diff` read, commits on the
 * run's branch, copies for branches that write at once), behind one interface so a dry run swaps it.
 * It never pushes, resets, rebases or commits on the user's branch, and never passes `--no-verify`.
 *
 * In: the tree a node works in. Out: values, never exceptions. Example:
 *   `const git = createGitPort(); await git.diff(cwd)` → `{ ok: true, text: "diff --git a/x b/x…" }`.
 */
import { headText } from "./cut.ts";
import { type CommitOutcome, type CommitRequest, commitTree } from "./git-commit.ts";
import { type Copy, type KnownCopies, type LandResult, landCopies, openCopy, releaseCopy } from "./git-copies.ts";
import { emptyTree, type GitFailure, git, gitWords, headCommit, indexOfTree, out } from "./git-exec.ts";
import {
	applyChange,
	type ChangeOutcome,
	changeBetween,
	filesBetween,
	type TreeOutcome,
	treeOf,
	snapshotTree,
	type TreeSnapshot,
} from "./git-tree.ts";

/** How much of a diff a node reads by default: enough for a review, small enough for any context. */
export const DIFF_BYTES = 60_000;

/** The `diff` read, or why git could not give it (the reading node then fails `unavailable`). */
export type DiffOutcome = { ok: true; text: string } | GitFailure;

/** A copy opened, or why not. */
export type OpenCopyOutcome = { ok: true; copy: Copy } | GitFailure;

/** The evaluator's only way to touch git. */
export interface GitPort {
	/** The repository's top level, or undefined outside a repository (the run stage's `not-a-repository`). */
	root(cwd: string): Promise<string | undefined>;
	/**
	 * What the tree changed since HEAD (against the empty tree before the first commit), untracked files
	 * included, cut at `maxBytes` (default {@link DIFF_BYTES}). The user's index is never touched.
	 */
	diff(cwd: string, maxBytes?: number): Promise<DiffOutcome>;
	/**
	 * Commits the whole tree on the run's branch `pi-flows/<slug>`, opened from HEAD by the first commit
	 * (pass the branch it returned to the later ones). A clean tree is `committed: false`.
	 */
	commit(cwd: string, request: CommitRequest): Promise<CommitOutcome>;
	/** A worktree holding the tree as it stands, on its own branch `pi-flows-copy/<label>-<random>`. */
	openCopy(cwd: string, label: string): Promise<OpenCopyOutcome>;
	/** Lands each copy's patch in the run's tree, in the order given; see {@link LandResult}. */
	land(cwd: string, copies: readonly Copy[]): Promise<LandResult[]>;
	/**
	 * Removes a copy's worktree; its branch too once its work landed or when it holds none. A copy whose
	 * work did not land keeps its branch, which is returned. Idempotent and never throws.
	 */
	release(copy: Copy): Promise<string | undefined>;
	/**
	 * The tree of the working tree as it stands, `leaveOut` dropped (a visit's identity; see `git-tree.ts`).
	 * Optional: a port without it (a dry run, a test's fake) makes every visit's tree `none`.
	 */
	tree?(cwd: string, leaveOut: readonly string[]): Promise<TreeOutcome>;
	/** The files and the patch between two trees: a visit's change, recorded for reuse. */
	change?(cwd: string, before: string, after: string): Promise<ChangeOutcome>;
	/** The files that differ between two trees, to name a tree that changed. */
	files?(cwd: string, before: string, after: string): Promise<string[] | GitFailure>;
	/** Writes a recorded change again in the working tree (all or nothing). */
	apply?(
		cwd: string,
		change: { before: string; after: string; patch?: string },
		reverse?: boolean,
	): Promise<{ ok: true } | GitFailure>;
	/**
	 * The tree as it stands, whole, as one tree object (git-tree.ts), for a run's or a writing visit's start.
	 * Optional: a port that keeps no trees (a dry run's) records none, and commits take the whole tree.
	 */
	snapshot?(cwd: string): Promise<{ ok: true; snapshot: TreeSnapshot } | GitFailure>;
}

/** The repository's top level. */
async function root(cwd: string): Promise<string | undefined> {
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	const path = top.ok ? out(top) : "";
	// A bare repository or the inside of `.git` answers with an empty top: no tree to work in.
	return path || undefined;
}

async function diff(cwd: string, maxBytes = DIFF_BYTES): Promise<DiffOutcome> {
	const tree = await indexOfTree(cwd);
	if (!tree.ok) return { ok: false, kind: "unavailable", message: tree.message };
	try {
		const against = (await headCommit(cwd)) ?? (await emptyTree(cwd));
		if (!against) return { ok: false, kind: "unavailable", message: "cannot tell what HEAD is" };
		// One byte past the budget tells "exactly the budget" from "more"; git is stopped there.
		const shown = await git(cwd, ["diff", "--cached", "--no-color", "--no-ext-diff", against], {
			env: tree.index.env,
			maxBuffer: maxBytes + 1,
		});
		if (!shown.ok && !shown.overflow) return { ok: false, kind: "unavailable", message: gitWords(shown) };
		return { ok: true, text: headText(shown.stdout, maxBytes, "diff", shown.overflow) };
	} finally {
		await tree.index.drop();
	}
}

/**
 * The git port on the local machine. Calls that change refs, worktrees or the run's tree wait for each
 * other: concurrent branches open and release copies at once, and git's ref and packed-refs locks
 * refuse a second writer rather than wait.
 */
export function createGitPort(): GitPort {
	const known: KnownCopies = new Map();
	// Copies whose work landed: only their branches are deleted on release.
	const landed = new Set<string>();
	let queue: Promise<unknown> = Promise.resolve();
	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const next = queue.then(work, work);
		queue = next.catch(() => undefined);
		return next;
	};
	return {
		root,
		diff,
		snapshot: snapshotTree,
		commit: (cwd, request) => serial(() => commitTree(cwd, request)),
		openCopy: (cwd, label) =>
			serial(async () => {
				try {
					return await openCopy(cwd, label, known);
				} catch (error) {
					// Only the temp folder can throw here (a full or read-only disk): a copy not made is a value.
					return {
						ok: false,
						kind: "unavailable",
						message: `cannot open a copy: ${error instanceof Error ? error.message : String(error)}`,
					};
				}
			}),
		land: (cwd, copies) =>
			serial(async () => {
				const results = await landCopies(cwd, copies);
				for (const [i, c] of copies.entries()) if (results[i]?.landed) landed.add(c.dir);
				return results;
			}),
		// releaseCopy returns rather than throws; the catch only keeps a future slip from failing a run
		// that already ended its block, since a leftover copy costs disk space and nothing else.
		release: (copy) => serial(() => releaseCopy(copy, known, landed).catch(() => undefined)),
		tree: treeOf,
		change: changeBetween,
		files: filesBetween,
		apply: (cwd, change, reverse) => serial(() => applyChange(cwd, change, reverse)),
	};
}
