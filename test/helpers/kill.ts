/**
 * `pi-flows` as a child process, for the tests that need a real process to kill or two at once: the crash
 * tests SIGKILL a run at a chosen point of its journal, then resume it with the real CLI.
 */
import { cliBin } from "./built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TempProject } from "./project.ts";

/** What a finished `pi-flows` process said. */
export interface Exited {
	status: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `pi-flows <args>` in the project without blocking, so two can race. */
export function cliChild(project: TempProject, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Exited> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], {
			cwd: project.cwd,
			env: { ...project.env, ...env },
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		child.once("exit", (status) => resolve({ status, stdout, stderr }));
	});
}

/** Options of {@link killWhen}. */
export interface KillOptions {
	/** How often the journal is read. Default 5 ms. */
	pollMs?: number;
	/** A run that ends before the point is reached resolves with its folder instead of failing. Default false. */
	endedIsOk?: boolean;
}

/**
 * Starts `pi-flows run <args> --runs-dir <home>` and SIGKILLs it as soon as its journal's text passes
 * `ready`; resolves with the run's folder. The runs folder may exist a moment before the run's own folder.
 */
export function killWhen(
	project: TempProject,
	args: readonly string[],
	home: string,
	ready: (journal: string) => boolean,
	options: KillOptions = {},
): Promise<string> {
	const folder = () => {
		const dir = join(project.cwd, home);
		const made = existsSync(dir) ? readdirSync(dir) : [];
		return made[0] ? join(dir, made[0]) : undefined;
	};
	return new Promise((resolve, reject) => {
		const child: ChildProcess = spawn(process.execPath, [cliBin(), "run", ...args, "--runs-dir", home], {
			cwd: project.cwd,
			env: project.env,
			stdio: "ignore",
		});
		const timer = setInterval(() => {
			const dir = folder();
			const journal = dir && join(dir, "journal.jsonl");
			if (!journal || !existsSync(journal) || !ready(readFileSync(journal, "utf8"))) return;
			clearInterval(timer);
			child.kill("SIGKILL");
			child.once("exit", () => resolve(dir as string));
		}, options.pollMs ?? 5);
		child.once("exit", (code) => {
			clearInterval(timer);
			const dir = folder();
			if (code === null) return;
			if (options.endedIsOk && dir) resolve(dir);
			else reject(new Error(`the run ended (${code}) before it was killed`));
		});
	});
}
