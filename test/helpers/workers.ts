/**
 * `pi-flows worker` processes for the distributed tests, started the way a person starts one (the
 * installed-style binary, its own stdout and stderr) and stopped after each test, however it ended.
 */
import { cliBin } from "./built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import type { TempProject } from "./project.ts";

/** A started worker: its process, its executor id once it joined, and everything it printed. */
export interface WorkerProcess {
	child: ChildProcess;
	executor: Promise<string>;
	log(): string;
}

const workers: WorkerProcess[] = [];

/**
 * Starts `pi-flows worker <args>` in the project. Its `executor` resolves with the id it printed on joining
 * and rejects, with what it printed, if it exits first. Every worker started here is stopped after the test
 * ({@link stopWorkers}), so a failing test leaves none behind.
 */
export function startWorker(project: TempProject, args: string[], env: NodeJS.ProcessEnv = {}): WorkerProcess {
	const child = spawn(process.execPath, [cliBin(), "worker", ...args], {
		cwd: project.cwd,
		env: { ...project.env, ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let err = "";
	child.stderr?.on("data", (d) => {
		err += d;
	});
	const executor = new Promise<string>((resolve, reject) => {
		child.stdout?.on("data", (d) => {
			out += d;
			const m = /^worker (\S+) on /m.exec(out);
			if (m) resolve(m[1] as string);
		});
		child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before joining:\n${err}`)));
	});
	const w = { child, executor, log: () => `${out}\n${err}` };
	workers.push(w);
	return w;
}

/**
 * Stops every worker started since the last call (SIGTERM, then SIGKILL after 10 s). Registered after each
 * test of every file by test/helpers/each-file.ts: a hook registered here, at the top of the module, would
 * reach only the first file of a worker that shares its modules between files.
 */
export async function stopWorkers(): Promise<void> {
	for (const w of workers.splice(0)) {
		if (w.child.exitCode !== null || w.child.signalCode !== null) continue;
		const gone = new Promise((r) => w.child.once("exit", r));
		w.child.kill("SIGTERM");
		await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
		if (w.child.exitCode === null) w.child.kill("SIGKILL");
	}
}
