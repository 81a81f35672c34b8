/**
 * A real git repository in the OS temp folder for a port test, with its own user config (so the test
 * never depends on the machine's), and helpers to write files and ask git what happened.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempRepo {
	/** The repository's top (real path, so it compares equal to what git prints). */
	dir: string;
	write(path: string, text: string | Buffer): void;
	read(path: string): string;
	/** The bytes of the user's index file: equal before and after means git never wrote it. */
	index(): Buffer;
	/** Runs git in the repository (or `cwd`) and returns its trimmed stdout; throws on failure. */
	git(args: string[], cwd?: string): string;
	cleanup(): void;
}

/** The environment git runs with in tests: nothing inherited that points at another repository. */
export function gitEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) delete env[name];
	return env;
}

export function tempDir(): string {
	return realpathSync(mkdtempSync(join(tmpdir(), "pi-flows-ports-")));
}

/** A repository with `files` committed on `main` (no commit when `files` is undefined). */
export function tempRepo(files?: Record<string, string>): TempRepo {
	const dir = tempDir();
	const run = (args: string[], cwd = dir) =>
		execFileSync("git", args, { cwd, env: gitEnv(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
	run(["init", "-q", "-b", "main"]);
	run(["config", "user.name", "Test Person"]);
	run(["config", "user.email", "test@example.com"]);
	run(["config", "commit.gpgsign", "false"]);
	const repo: TempRepo = {
		dir,
		write(path, text) {
			const file = join(dir, path);
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, text);
		},
		read: (path) => readFileSync(join(dir, path), "utf8"),
		index: () => readFileSync(join(dir, ".git/index")),
		git: run,
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
	if (files) {
		for (const [path, text] of Object.entries(files)) repo.write(path, text);
		run(["add", "-A"]);
		run(["commit", "-q", "-m", "initial"]);
	}
	return repo;
}

/**
 * Whether a process still runs. A zombie counts as ended: under an init that does not reap (some
 * containers), a killed orphan stays one, yet it runs nothing and holds nothing.
 */
export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return true;
	}
}
