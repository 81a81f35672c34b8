/**
 * The one place the web view starts a process: our own CLI (`bin/pi-flows.js`) on the Node that runs the
 * server, with an argument list and never a shell, so a flow's path, a run id or an input the person edited
 * on the page is only ever an argument. The page's actions go through the commands a person would type
 * (`plan --reuse`, `run`, `resume`), so the page and the terminal cannot disagree.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../package/index.ts";

/**
 * The command this server was started as, when that is our `bin/pi-flows.js`, so the page's runs are the
 * same build as the server that shows them (a copy built elsewhere, or the tarball's, never the sources of
 * the package root it reads its files from); the package's own otherwise (the library serving a page).
 */
const BIN = ownBin(process.argv[1]) ?? join(PACKAGE_ROOT, "bin", "pi-flows.js");

function ownBin(started: string | undefined): string | undefined {
	return started && basename(started) === "pi-flows.js" && basename(dirname(started)) === "bin" ? started : undefined;
}

/** How a finished command ended: its exit code (-1 when it could not start or was killed) and what it printed. */
export interface CliOutput {
	code: number;
	stdout: string;
	stderr: string;
}

/** `pi-flows <args>` to its end, with what it printed: a preview reads the command's own JSON. */
export function runCli(
	args: readonly string[],
	o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<CliOutput> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[BIN, ...args],
			{ cwd: o.cwd, env: o.env, timeout: o.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
				resolve({ code, stdout: String(stdout), stderr: String(stderr) });
			},
		);
	});
}

/**
 * `pi-flows <args>` detached from the server, its output appended to `log` (a descriptor the caller opened
 * with the safe writers, and closes once this returns) or dropped: a run or a resume outlives the request
 * that started it, and the server's own end.
 */
export function startCli(
	args: readonly string[],
	o: { cwd: string; env: NodeJS.ProcessEnv; log: number | "ignore" },
): ChildProcess {
	return spawn(process.execPath, [BIN, ...args], {
		cwd: o.cwd,
		env: o.env,
		detached: true,
		stdio: ["ignore", o.log, o.log],
	});
}
