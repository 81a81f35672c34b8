/**
 * Running git for the ports: `execFile` and never a shell, so no text from a flow file is ever parsed by
 * one; a fixed identity, so commits work on a machine with no git config; no prompts, so a run never
 * hangs on a credential or an editor. Failures come back as values with git's own words.
 */
import { type ExecFileException, execFile } from "node:child_process";
import { copyFile, mkdtemp, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Failure } from "../../runtime/index.ts";

/**
 * Why git could not do what was asked, as every port call that can fail answers it: a run's failure
 * (`unavailable`, the kind a node reading the port fails with) with git's own words.
 */
export type GitFailure = { ok: false } & Failure<"unavailable">;

/** The author and committer of every commit the ports make, whatever the machine's config says. */
export const IDENTITY = { name: "pi-flows", email: "pi-flows@localhost" };

/** What one git command gave. */
export interface GitResult {
	/** Exit code 0. */
	ok: boolean;
	code: number | null;
	stdout: Buffer;
	stderr: string;
	/** Output passed `maxBuffer` and git was stopped: `stdout` holds the first `maxBuffer` bytes. */
	overflow: boolean;
	/** Git could not start (not installed, the folder is gone). */
	startError?: string;
}

/** Options of one git command. */
export interface GitCall {
	/** Extra environment, e.g. `GIT_INDEX_FILE` for a scratch index. */
	env?: Record<string, string>;
	/** Written to git's stdin (a message, a patch). */
	input?: string | Buffer;
	/** Default 64 MiB: far above a diff or a patch a flow should land. */
	maxBuffer?: number;
}

const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * Variables that would point git at another repository or index than the `cwd` we pass: inherited from a
 * hook or a parent git, they would make the ports act on the wrong tree.
 */
const INHERITED_GIT_PLACES = [
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY",
	"GIT_PREFIX",
	"GIT_COMMON_DIR",
];

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const name of INHERITED_GIT_PLACES) delete env[name];
	return {
		...env,
		GIT_TERMINAL_PROMPT: "0",
		GIT_AUTHOR_NAME: IDENTITY.name,
		GIT_AUTHOR_EMAIL: IDENTITY.email,
		GIT_COMMITTER_NAME: IDENTITY.name,
		GIT_COMMITTER_EMAIL: IDENTITY.email,
		...extra,
	};
}

/** Runs `git <args>` in `cwd`. Never throws: every failure is in the result. */
export function git(cwd: string, args: readonly string[], call: GitCall = {}): Promise<GitResult> {
	return new Promise((done) => {
		const child = execFile(
			"git",
			args,
			{
				cwd,
				env: environment(call.env),
				encoding: "buffer",
				maxBuffer: call.maxBuffer ?? DEFAULT_MAX_BUFFER,
				windowsHide: true,
			},
			(err: ExecFileException | null, stdout: Buffer, stderr: Buffer) => {
				const overflow = err?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";
				const code = typeof err?.code === "number" ? err.code : err ? null : 0;
				const startError = err && typeof err.code === "string" && !overflow ? err.message : undefined;
				done({
					ok: !err,
					code,
					stdout,
					stderr: stderr.toString("utf8"),
					overflow,
					...(startError ? { startError } : {}),
				});
			},
		);
		// EPIPE when git exits before reading all of stdin (it refused early): its exit code says why.
		child.stdin?.on("error", () => {});
		child.stdin?.end(call.input ?? "");
	});
}

/** stdout as trimmed text: a name, a sha or a path git prints ends in a newline the caller never wants. */
export function out(result: GitResult): string {
	return result.stdout.toString("utf8").trim();
}

const MAX_WORDS = 2000;

/** Git's own words for a failure: what it wrote to stderr, else stdout, else why it could not start. */
export function gitWords(result: GitResult): string {
	const said = result.stderr.trim() || result.stdout.toString("utf8").trim();
	// Words for a message, not a transcript: a hook can print pages, and its last lines say why.
	if (said.length > MAX_WORDS) return `…${said.slice(said.length - MAX_WORDS)}`;
	if (said) return said;
	if (result.startError) return `git could not start: ${result.startError}`;
	return `git exited with ${result.code ?? "a signal"}`;
}

/** The commit HEAD names, or undefined on a branch with no commit yet. */
export async function headCommit(cwd: string): Promise<string | undefined> {
	const head = await git(cwd, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
	return head.ok ? out(head) : undefined;
}

/** The empty tree's id in this repository's hash (SHA-1 or SHA-256), to diff an unborn branch against. */
export async function emptyTree(cwd: string): Promise<string | undefined> {
	const tree = await git(cwd, ["hash-object", "-t", "tree", "--stdin"]);
	return tree.ok ? out(tree) : undefined;
}

/** A scratch index: its environment, and how to drop it. */
export interface ScratchIndex {
	env: { GIT_INDEX_FILE: string };
	/** Another scratch index starting as a copy of this one (stat data included). */
	fork(): Promise<ScratchIndex>;
	drop(): Promise<void>;
}

/** A scratch index in a temp folder of its own, starting as a copy of `source` (none: empty). */
export async function scratchFrom(source: string | undefined): Promise<ScratchIndex> {
	const dir = await mkdtemp(join(tmpdir(), "pi-flows-index-"));
	const file = join(dir, "index");
	// No index yet (a fresh repository) is an empty one; any other copy failure is real.
	if (source) {
		const copied = await copyFile(source, file).then(
			() => true,
			(error: NodeJS.ErrnoException) => {
				if (error.code !== "ENOENT") throw error;
				return false;
			},
		);
		// git trusts a file whose stat matches the index only when it is older than the index itself (its
		// racy-file rule); the copy must keep the source's time or a same-size edit made in that second is missed.
		if (copied) {
			const st = await stat(source);
			await utimes(file, st.atime, st.mtime);
		}
	}
	return {
		env: { GIT_INDEX_FILE: file },
		fork: () => scratchFrom(file),
		// A scratch index is ours alone; if it cannot be removed, the temp folder's cleaner will.
		drop: () => rm(dir, { recursive: true, force: true }).catch(() => {}),
	};
}

/**
 * A scratch index holding the working tree of `cwd` exactly as it stands, untracked files included and
 * ignored ones left out, so a snapshot or a diff never touches the user's staging. It starts as a copy of
 * the real index so `git add -A` only rehashes files whose stat data changed.
 */
export async function indexOfTree(cwd: string): Promise<{ ok: true; index: ScratchIndex } | GitFailure> {
	const where = await git(cwd, ["rev-parse", "--git-path", "index"]);
	if (!where.ok) return { ok: false, kind: "unavailable", message: gitWords(where) };
	let index: ScratchIndex;
	try {
		index = await scratchFrom(resolve(cwd, out(where)));
	} catch (error) {
		return {
			ok: false,
			kind: "unavailable",
			message: `cannot make a scratch index: ${error instanceof Error ? error.message : String(error)}`,
		};
	}
	const add = await git(cwd, ["add", "-A"], { env: index.env });
	if (!add.ok) {
		await index.drop();
		return { ok: false, kind: "unavailable", message: gitWords(add) };
	}
	return { ok: true, index };
}
