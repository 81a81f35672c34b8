/**
 * Copies of the tree for branches that write at the same time (`copies: true`): a git worktree per
 * branch, started from the tree as it stands, whose patches land back one at a time, in branch order.
 *
 * In: the run's tree and a label per branch. Out: a `Copy` per branch, then one `LandResult` per copy.
 * Example: `openCopy(cwd, "work/fix")` → `{ dir: "/tmp/pi-flows-copy-ab12", branch:
 * "pi-flows-copy/work-fix-3f9a1c", base: "<snapshot sha>" }`; after the block, `land(cwd, [a, b])` →
 * `[{ landed: true }, { landed: false, refused: ["src/a.ts"], message: "…" }]`.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { guardedPaths, guardHit } from "../../guard/index.ts";
import { leaves } from "./bash-check.ts";
import { slugify } from "./git-commit.ts";
import { type GitFailure, git, gitWords, headCommit, indexOfTree, out, type ScratchIndex } from "./git-exec.ts";

/** Every copy's branch starts with this; release deletes no branch without it. */
export const COPY_BRANCH_PREFIX = "pi-flows-copy/";

const COPY_FOLDER_PREFIX = "pi-flows-copy-";

/** One branch's copy of the tree: what a journal records to find it again. */
export interface Copy {
	/** The worktree's folder, outside the repository. */
	dir: string;
	/** The copy's own branch, `pi-flows-copy/<label>-<random>`. */
	branch: string;
	/** The snapshot commit the copy started from: its patch is taken against it. */
	base: string;
}

/** How one copy's landing went. */
export interface LandResult {
	landed: boolean;
	/** The files whose changes did not apply, when the patch was refused. */
	refused?: string[];
	message?: string;
	/** The branch that keeps a copy's work that did not land (the work is never deleted). */
	kept?: string;
}

/** Where a copy's repository keeps its worktrees, by copy folder, for a release after the folder is gone. */
export type KnownCopies = Map<string, string>;

/** The folder git commands about the whole repository run in: its top, so no path is read relative. */
async function topOf(cwd: string): Promise<{ ok: true; top: string } | GitFailure> {
	const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
	return top.ok
		? { ok: true, top: out(top) }
		: { ok: false, kind: "unavailable", message: `${cwd} is not in a git repository: ${gitWords(top)}` };
}

/**
 * A commit of the working tree as it stands, referenced by no branch: taken with a scratch index and
 * `commit-tree`, so neither the user's staging nor their branches (nor their hooks) are involved.
 */
async function snapshot(top: string, message: string): Promise<{ ok: true; sha: string } | GitFailure> {
	const tree = await indexOfTree(top);
	if (!tree.ok) return tree;
	try {
		const written = await git(top, ["write-tree"], { env: tree.index.env });
		if (!written.ok) return { ok: false, kind: "unavailable", message: gitWords(written) };
		const head = await headCommit(top);
		const parent = head ? ["-p", head] : [];
		const commit = await git(top, ["commit-tree", out(written), ...parent, "-F", "-"], { input: message });
		return commit.ok ? { ok: true, sha: out(commit) } : { ok: false, kind: "unavailable", message: gitWords(commit) };
	} finally {
		await tree.index.drop();
	}
}

/**
 * Opens a copy: a snapshot of the tree (uncommitted and untracked changes included), checked out as a
 * worktree on a new branch in a temp folder. The folder must be outside the repository, or the run
 * tree's `git add -A` would swallow the copy.
 */
export async function openCopy(
	cwd: string,
	label: string,
	known: KnownCopies,
): Promise<{ ok: true; copy: Copy } | GitFailure> {
	const where = await topOf(cwd);
	if (!where.ok) return where;
	const snap = await snapshot(where.top, `pi-flows: snapshot of the tree for ${label}`);
	if (!snap.ok) return { ok: false, kind: "unavailable", message: `cannot snapshot the tree: ${snap.message}` };
	const dir = await mkdtemp(resolve(tmpdir(), COPY_FOLDER_PREFIX));
	if (!leaves(where.top, await realpath(dir))) {
		await rm(dir, { recursive: true, force: true });
		return {
			ok: false,
			kind: "unavailable",
			message: `the temp folder ${dir} is inside the repository; set TMPDIR elsewhere`,
		};
	}
	const branch = `${COPY_BRANCH_PREFIX}${slugify(label)}-${randomBytes(3).toString("hex")}`;
	const added = await git(where.top, ["worktree", "add", "-q", "-b", branch, dir, snap.sha]);
	if (!added.ok) {
		await rm(dir, { recursive: true, force: true });
		return { ok: false, kind: "unavailable", message: `cannot open a copy: ${gitWords(added)}` };
	}
	const common = await git(dir, ["rev-parse", "--git-common-dir"]);
	if (common.ok) known.set(dir, resolve(dir, out(common)));
	return { ok: true, copy: { dir, branch, base: snap.sha } };
}

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false,
	);
}

/**
 * Commits whatever the copy holds onto its branch, with plumbing: the copy branch is pi-flows'
 * bookkeeping, not a commit of the user's, so their hooks are not asked (they judge the run's commit).
 * A copy folder that is gone keeps what its branch already has.
 */
async function saveWork(copy: Copy): Promise<{ ok: true } | GitFailure> {
	if (!(await exists(copy.dir))) return { ok: true };
	const add = await git(copy.dir, ["add", "-A"]);
	if (!add.ok) return { ok: false, kind: "unavailable", message: gitWords(add) };
	const tree = await git(copy.dir, ["write-tree"]);
	if (!tree.ok) return { ok: false, kind: "unavailable", message: gitWords(tree) };
	const head = await headCommit(copy.dir);
	if (head) {
		const headTree = await git(copy.dir, ["rev-parse", `${head}^{tree}`]);
		if (headTree.ok && out(headTree) === out(tree)) return { ok: true };
	}
	const parent = head ? ["-p", head] : [];
	const commit = await git(copy.dir, ["commit-tree", out(tree), ...parent, "-F", "-"], {
		input: `pi-flows: work of ${copy.branch}`,
	});
	if (!commit.ok) return { ok: false, kind: "unavailable", message: gitWords(commit) };
	const moved = await git(copy.dir, ["update-ref", `refs/heads/${copy.branch}`, out(commit)]);
	return moved.ok ? { ok: true } : { ok: false, kind: "unavailable", message: gitWords(moved) };
}

/**
 * Options that make a patch `git apply` can take back whatever the user's diff config says: full blob
 * ids for the 3-way fallback, binary content, fixed prefixes, no renames, no external or text-converted
 * diff, paths from the top.
 */
export const PATCH = [
	"diff",
	"--binary",
	"--full-index",
	"--no-color",
	"--no-ext-diff",
	"--no-textconv",
	"--no-renames",
	"--no-relative",
	"--src-prefix=a/",
	"--dst-prefix=b/",
];

/** A patch past this is not landed: it would not be work a flow's branch meant to do. */
const MAX_PATCH_BYTES = 1024 * 1024 * 1024;

/** Lands each copy in order; the first that does not land stops the rest, and nothing landed is undone. */
export async function landCopies(cwd: string, copies: readonly Copy[]): Promise<LandResult[]> {
	const results: LandResult[] = [];
	const where = await topOf(cwd);
	let stopper: string | undefined = where.ok ? undefined : where.message;
	for (const copy of copies) {
		if (stopper !== undefined) {
			results.push({ landed: false, message: `not tried: ${stopper}` });
			continue;
		}
		const result = await landOne(where.ok ? where.top : cwd, copy);
		results.push(result);
		if (!result.landed) stopper = `${copy.branch} before it did not land`;
	}
	// Work that did not land stays on its branch; each result says where and how to get it.
	for (const [i, copy] of copies.entries()) {
		const r = results[i];
		if (r.landed || !(await keepsWork(copy))) continue;
		r.kept = copy.branch;
		r.message = `${r.message ? `${r.message}; ` : ""}${keptWords(copy)}`;
	}
	return results;
}

/** Where a copy's work is kept and how to take it, in the words a result and a report show. */
export function keptWords(copy: Copy): string {
	return `its work is kept on branch ${copy.branch} (see it with \`git diff ${copy.base.slice(0, 12)} ${copy.branch}\`, take it with \`git cherry-pick ${copy.branch}\`)`;
}

/** Commits what the copy holds onto its branch and says whether the branch holds work beyond its base. */
async function keepsWork(copy: Copy): Promise<boolean> {
	await saveWork(copy);
	const head = await git(copy.dir, ["rev-parse", `refs/heads/${copy.branch}`]);
	if (head.ok) return out(head) !== copy.base;
	// The folder is gone: ask the repository the copy came from, when it is known to git through the branch.
	return false;
}

async function landOne(top: string, copy: Copy): Promise<LandResult> {
	const saved = await saveWork(copy);
	if (!saved.ok)
		return { landed: false, refused: [], message: `the copy's work could not be committed: ${saved.message}` };
	const patch = await git(top, [...PATCH, copy.base, `refs/heads/${copy.branch}`], { maxBuffer: MAX_PATCH_BYTES });
	if (patch.overflow)
		return { landed: false, refused: [], message: `the copy's patch is larger than ${MAX_PATCH_BYTES} bytes` };
	if (!patch.ok)
		return { landed: false, refused: [], message: `the copy's patch could not be taken: ${gitWords(patch)}` };
	if (patch.stdout.length === 0) return { landed: true };
	// The write guard holds at landing too: a turn in a copy wrote its worktree's `.pi/agents/evil.md`.
	const guarded = await guardedFiles(top, patch.stdout);
	if (guarded.length)
		return {
			landed: false,
			refused: guarded,
			message: `the copy's patch writes ${guarded.join(", ")}, where pi-flows or pi reads definitions, settings or credentials; no turn's change lands there`,
		};
	const tree = await indexOfTree(top);
	if (!tree.ok) return { landed: false, refused: [], message: `the run's tree cannot be read: ${tree.message}` };
	try {
		const before = await git(top, ["write-tree"], { env: tree.index.env });
		if (!before.ok) return { landed: false, refused: [], message: gitWords(before) };
		const merged = await mergeInScratch(top, tree.index.fork, patch.stdout);
		if (!merged.ok) return { landed: false, refused: merged.files, message: merged.message };
		// The scratch index is the tree as it stood, so this moves exactly the patched files, all or none.
		const moved = await git(top, ["read-tree", "-m", "-u", out(before), merged.tree], { env: tree.index.env });
		if (!moved.ok) return { landed: false, refused: await patchFiles(top, patch.stdout), message: gitWords(moved) };
		return { landed: true };
	} finally {
		await tree.index.drop();
	}
}

type Merge = { ok: true; tree: string } | { ok: false; files: string[]; message: string };

/**
 * Applies the patch to a second scratch index only (`--cached`), falling back to a 3-way merge with the
 * blobs the patch names. Conflicts stay in that index, never in the tree, so a refused patch leaves no
 * markers behind.
 */
async function mergeInScratch(top: string, fork: () => Promise<ScratchIndex>, patch: Buffer): Promise<Merge> {
	let trial: ScratchIndex;
	try {
		trial = await fork();
	} catch (error) {
		return {
			ok: false,
			files: [],
			message: `cannot make a scratch index: ${error instanceof Error ? error.message : String(error)}`,
		};
	}
	try {
		const applied = await git(top, ["apply", "--3way", "--cached", "--whitespace=nowarn", "-"], {
			env: trial.env,
			input: patch,
		});
		if (!applied.ok) {
			const unmerged = await git(top, ["ls-files", "-u", "-z"], { env: trial.env });
			const files = new Set(
				unmerged.ok
					? unmerged.stdout
							.toString("utf8")
							.split("\0")
							.filter(Boolean)
							.map((e) => e.slice(e.indexOf("\t") + 1))
					: [],
			);
			for (const file of namedInErrors(applied.stderr)) files.add(file);
			const list = files.size > 0 ? [...files] : await patchFiles(top, patch);
			return {
				ok: false,
				files: list.sort(),
				message: `the patch does not apply to the run's tree: ${gitWords(applied)}`,
			};
		}
		const tree = await git(top, ["write-tree"], { env: trial.env });
		return tree.ok
			? { ok: true, tree: out(tree) }
			: { ok: false, files: await patchFiles(top, patch), message: gitWords(tree) };
	} finally {
		await trial.drop();
	}
}

/** Files `git apply` names in its refusals (a file added on both sides never reaches the 3-way stage). */
function namedInErrors(stderr: string): string[] {
	const files: string[] = [];
	for (const line of stderr.split("\n")) {
		const failed = /^error: patch failed: (.+):\d+$/.exec(line);
		const other =
			/^error: (.+?): (?:already exists in|does not exist in|does not match index|patch does not apply|wrong type|has type)/.exec(
				line,
			);
		const file = failed?.[1] ?? other?.[1];
		if (file) files.push(file);
	}
	return files;
}

/** The files of a patch that fall in the write guard of the tree at `top` (src/guard). */
async function guardedFiles(top: string, patch: Buffer): Promise<string[]> {
	const guarded = guardedPaths({ cwd: top });
	return (await patchFiles(top, patch)).filter((file) => guardHit(join(top, file), guarded) !== undefined);
}

/** Every file a patch touches: the refusal's list when git names none. */
async function patchFiles(top: string, patch: Buffer): Promise<string[]> {
	const stat = await git(top, ["apply", "--numstat", "-z", "-"], { input: patch });
	if (!stat.ok) return [];
	return stat.stdout
		.toString("utf8")
		.split("\0")
		.filter(Boolean)
		.map((entry) => entry.split("\t").slice(2).join("\t"));
}

/**
 * Removes a copy's worktree, and its branch once its work landed or when it holds none. A copy whose work
 * did not land (a refused patch, a stopped run) keeps its branch, with its work committed on it: that
 * branch is returned. Idempotent, and it never throws: it runs when a block ends, whatever ended it.
 */
export async function releaseCopy(
	copy: Copy,
	known: KnownCopies,
	landed: ReadonlySet<string> = new Set(),
): Promise<string | undefined> {
	// Only what openCopy made is ever removed, whatever a journal or a caller hands in.
	if (!copy.branch.startsWith(COPY_BRANCH_PREFIX) || !basename(copy.dir).startsWith(COPY_FOLDER_PREFIX))
		return undefined;
	let keep = !landed.has(copy.dir) && (await exists(copy.dir)) && (await keepsWork(copy));
	let common = known.get(copy.dir);
	if (!common && (await exists(copy.dir))) {
		const found = await git(copy.dir, ["rev-parse", "--git-common-dir"]);
		if (found.ok) common = resolve(copy.dir, out(found));
	}
	if (common && !keep && !landed.has(copy.dir)) {
		// The folder may be gone, but what was committed on the branch inside it is still work.
		const head = await git(common, ["rev-parse", "-q", "--verify", `refs/heads/${copy.branch}`]);
		keep = head.ok && out(head) !== copy.base;
	}
	if (common) {
		// A failure here means it is already gone (a second release) or held by a process: both leave
		// nothing the run can do, and the folder removal below still frees the disk.
		await git(common, ["worktree", "remove", "--force", copy.dir]);
		if (!keep) await git(common, ["branch", "-D", "-q", copy.branch]);
	}
	await rm(copy.dir, { recursive: true, force: true }).catch(() => {
		// The temp folder's own cleaner takes what a busy file kept us from removing.
	});
	known.delete(copy.dir);
	return keep ? copy.branch : undefined;
}
