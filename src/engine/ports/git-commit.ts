/**
 * The `commit` node's git work: everything in the working tree, committed on the run's own branch,
 * never on the branch the person was on, never pushed, never with `--no-verify` (their hooks judge it).
 *
 * In: the tree, a message, the run's slug, and the branch a previous commit of the run opened.
 * Out: `{ ok: true, committed, sha?, branch }`, or a failure with git's words. Example:
 *   first `commit(cwd, { message: "Add login", slug: "add login" })` → branch `pi-flows/add-login`;
 *   then `commit(cwd, { message: "Fix", slug, branch: "pi-flows/add-login" })` commits there again.
 */
import { commitSince } from "./git-commit-since.ts";
import { emptyTree, type GitFailure, git, gitWords, headCommit, out } from "./git-exec.ts";
import type { TreeSnapshot } from "./git-tree.ts";

/** Every run branch starts with this, so the user's branches are never candidates for a commit. */
export const RUN_BRANCH_PREFIX = "pi-flows/";

/** What a commit is asked to do. */
export interface CommitRequest {
	message: string;
	/** Slugged into the run's branch name the first time. */
	slug: string;
	/** The branch the run's first commit returned; absent for the first commit. */
	branch?: string;
	/** The tree the run started from: only what changed since is committed (git-commit-since.ts). */
	since?: TreeSnapshot;
}

/** What a commit did, or why it did nothing. */
export type CommitOutcome =
	| {
			ok: true;
			committed: boolean;
			sha?: string;
			branch: string;
			/** Paths the run changed that were untracked or modified before it began: left uncommitted. */
			left_out?: string[];
	  }
	| {
			ok: false;
			kind: "unavailable" | "empty-message";
			message: string;
			/** The run's branch when it was opened before the failure, so the next commit goes there too. */
			branch?: string;
	  };

/**
 * A branch-name slug: lower case, `[a-z0-9-]`, at most 40 characters; accents are dropped rather than the
 * letter, and nothing usable gives `run`.
 */
export function slugify(text: string): string {
	const slug = text
		.normalize("NFKD")
		.replace(/[\u0300-\u036f]/g, "")
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+/, "")
		.slice(0, 40)
		.replace(/-+$/, "");
	return slug || "run";
}

async function currentBranch(cwd: string): Promise<string | undefined> {
	const head = await git(cwd, ["symbolic-ref", "-q", "--short", "HEAD"]);
	return head.ok ? out(head) : undefined;
}

async function branchExists(cwd: string, name: string): Promise<boolean> {
	return (await git(cwd, ["show-ref", "--verify", "--quiet", `refs/heads/${name}`])).ok;
}

/** `name`, else `name-2`, `name-3`…: a taken name belongs to an earlier run, whose work must stay. */
async function freeBranch(cwd: string, name: string): Promise<string | undefined> {
	for (let n = 1; n <= 1000; n++) {
		const candidate = n === 1 ? name : `${name}-${n}`;
		if (!(await branchExists(cwd, candidate))) return candidate;
	}
	return undefined;
}

/** Opens the run's branch, or checks that HEAD is still on it. */
async function runBranch(cwd: string, request: CommitRequest): Promise<{ ok: true; branch: string } | GitFailure> {
	const current = await currentBranch(cwd);
	if (request.branch !== undefined) {
		const branch = request.branch;
		if (!branch.startsWith(RUN_BRANCH_PREFIX)) {
			return {
				ok: false,
				kind: "unavailable",
				message: `${branch} is not a run branch (${RUN_BRANCH_PREFIX}…); pi-flows commits only on its own branches`,
			};
		}
		if (current !== branch) {
			const where = current ? `on ${current}` : "detached";
			const back = (await branchExists(cwd, branch)) ? `type \`git switch ${branch}\` to go back` : `${branch} is gone`;
			return {
				ok: false,
				kind: "unavailable",
				message: `HEAD is ${where}, not on the run's branch ${branch}: ${back}`,
			};
		}
		return { ok: true, branch };
	}
	const branch = await freeBranch(cwd, `${RUN_BRANCH_PREFIX}${slugify(request.slug)}`);
	if (!branch)
		return {
			ok: false,
			kind: "unavailable",
			message: `every name ${RUN_BRANCH_PREFIX}${slugify(request.slug)}-N up to 1000 is taken`,
		};
	// `switch -c` starts at HEAD and carries the working tree and the index along, conflict-free.
	const opened = await git(cwd, ["switch", "-q", "-c", branch]);
	return opened.ok ? { ok: true, branch } : { ok: false, kind: "unavailable", message: gitWords(opened) };
}

/**
 * Commits the whole working tree (untracked files included) on the run's branch. The message goes in
 * through stdin, so nothing in it is read as an option, and `#` lines (a Markdown heading) are kept.
 */
export async function commitTree(cwd: string, request: CommitRequest): Promise<CommitOutcome> {
	if (!request.message.trim()) return { ok: false, kind: "empty-message", message: "the commit message is empty" };
	const opened = await runBranch(cwd, request);
	if (!opened.ok) return { ok: false, kind: "unavailable", message: opened.message };
	const branch = opened.branch;
	if (request.since) return commitSince(cwd, branch, { ...request, since: request.since });
	const fail = (message: string): CommitOutcome => ({ ok: false, kind: "unavailable", message, branch });
	const add = await git(cwd, ["add", "-A"]);
	if (!add.ok) return fail(gitWords(add));
	// Compared with the index rather than with `git status`, so a submodule's own edits do not count.
	const head = (await headCommit(cwd)) ?? (await emptyTree(cwd));
	if (!head) return fail("cannot tell what HEAD is");
	const changed = await git(cwd, ["diff", "--cached", "--quiet", "--no-ext-diff", head]);
	if (changed.ok) return { ok: true, committed: false, branch };
	if (changed.code !== 1) return fail(gitWords(changed));
	const commit = await git(cwd, ["commit", "-q", "--cleanup=whitespace", "-F", "-"], { input: request.message });
	if (!commit.ok) return fail(gitWords(commit));
	const sha = await headCommit(cwd);
	return sha ? { ok: true, committed: true, sha, branch } : fail("the commit was made but HEAD cannot be read");
}
