/**
 * The `check` port: a project script run with bash, judged by its exit code.
 *
 * In: a script path (from the repository root), the tree to run it in, a deadline and a stop signal.
 * Out: `{ ok: true, passed, report }` for any script that ran (a red check is a value), or `{ ok: false }`
 * only when it could not run to its end. Example:
 *   `run({ script: ".pi/checks/tests.sh", root, cwd: root, timeoutMs: 120_000 })`
 *   → `{ ok: true, passed: false, report: "FAIL test/a.test.ts…", exitCode: 1, ms: 5120 }`
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { abortFailure } from "../../runtime/index.ts";
import type { Failure } from "../../runtime/index.ts";
import { formatDuration } from "../../runtime/index.ts";
import { type LongTimer, longTimeout } from "../../runtime/index.ts";
import { redactText } from "../../secrets/index.ts";
import { ByteTail } from "./cut.ts";

/** How much of a check's output a report keeps: the end, where failures are summed up. */
export const REPORT_BYTES = 8000;

/** Default wait between SIGTERM and SIGKILL: long enough for a test runner to flush, short for a person. */
export const DEFAULT_GRACE_MS = 2000;

/** What one check run gave. */
export type CheckOutcome =
	| { ok: true; passed: boolean; report: string; exitCode: number | null; ms: number }
	| ({ ok: false; report: string } & Failure<"unavailable" | "timeout" | "stopped">);

/** One check run. */
export interface CheckRequest {
	/** The script's path from `root`, as the flow wrote it; it is also the script's `$0`. */
	script: string;
	/** The repository root the path is read from. */
	root: string;
	/** The tree the script runs in (a copy's folder inside `copies: true`). */
	cwd: string;
	timeoutMs: number;
	/** A stop: `stopped`, or `timeout` when its reason is a `TimeoutError`. */
	signal?: AbortSignal;
	/** The script's text read once at the run stage, so an agent editing the file mid-run changes nothing. */
	content?: string;
	/** The check visit asking (`fix#2/tests`), so a flow test can answer each visit of a check its own result. */
	visit?: string;
}

/** The check port: the evaluator's only way to run a project script, so a dry run can swap it. */
export interface CheckPort {
	run(request: CheckRequest): Promise<CheckOutcome>;
}

/** Options of {@link createBashCheck}. */
export interface BashCheckOptions {
	/** Wait between SIGTERM and SIGKILL of the script's group. Default: {@link DEFAULT_GRACE_MS}. */
	graceMs?: number;
}

/** Where a check script is, or why it may not be read. */
export type ScriptPath = { ok: true; path: string } | { ok: false; reason: "outside" | "missing"; message: string };

/**
 * Resolves a check script under `root`, refusing a path that leaves it, by `..`, by being absolute or
 * through a symlink: a flow file names a script of its project, never an arbitrary program. The
 * symlink test compares real paths, so a root that is itself a symlink (macOS `/tmp`) still works.
 */
export function scriptPath(root: string, script: string): ScriptPath {
	if (isAbsolute(script))
		return { ok: false, reason: "outside", message: `${script} is absolute; write it from the repository root` };
	const path = resolve(root, script);
	if (leaves(root, path)) return { ok: false, reason: "outside", message: `${script} leaves the repository` };
	let real: string;
	try {
		real = realpathSync(path);
	} catch (error) {
		return { ok: false, reason: "missing", message: `${script} cannot be read: ${words(error)}` };
	}
	let realRoot: string;
	try {
		realRoot = realpathSync(root);
	} catch (error) {
		return { ok: false, reason: "missing", message: `the repository ${root} cannot be read: ${words(error)}` };
	}
	if (leaves(realRoot, real))
		return { ok: false, reason: "outside", message: `${script} points outside the repository (to ${real})` };
	return { ok: true, path };
}

/** Whether `path` is outside `root` (both absolute): `..` first, or another drive on Windows. */
export function leaves(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function words(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * The check port on the local machine. Each run is `bash -c <content> <script>` with stdin closed, in
 * its own process group, so whatever the script started (a server, a watcher) dies with it.
 */
export function createBashCheck(options: BashCheckOptions = {}): CheckPort {
	const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
	return {
		async run(request) {
			if (request.signal?.aborted) return halted(request.signal, "");
			let content = request.content;
			if (content === undefined) {
				const where = scriptPath(request.root, request.script);
				if (!where.ok) return { ok: false, kind: "unavailable", message: where.message, report: "" };
				try {
					content = await readFile(where.path, "utf8");
				} catch (error) {
					return {
						ok: false,
						kind: "unavailable",
						message: `${request.script} cannot be read: ${words(error)}`,
						report: "",
					};
				}
			}
			// A stop that came while the script was being read must not let it start.
			if (request.signal?.aborted) return halted(request.signal, "");
			return runScript(content, request, graceMs);
		},
	};
}

type Halt = Failure<"timeout" | "stopped">;

/** A stop reads the signal's reason, so a deadline set by the caller words itself like ours. */
function haltOf(signal: AbortSignal): Halt {
	const why = abortFailure(signal);
	return { kind: why.kind === "timeout" ? "timeout" : "stopped", message: why.message };
}

function halted(signal: AbortSignal, report: string): CheckOutcome {
	return { ok: false, ...haltOf(signal), report };
}

type Ending = { by: "exit"; code: number | null } | { by: "error"; error: Error } | { by: "halt"; halt: Halt };

async function runScript(content: string, request: CheckRequest, graceMs: number): Promise<CheckOutcome> {
	const started = performance.now();
	const tail = new ByteTail(REPORT_BYTES);
	let child: ChildProcess;
	try {
		child = spawn("bash", ["-c", content, request.script], {
			cwd: request.cwd,
			stdio: ["ignore", "pipe", "pipe"],
			detached: true,
		});
	} catch (error) {
		return { ok: false, kind: "unavailable", message: `bash could not start: ${words(error)}`, report: "" };
	}
	// One sink for both streams keeps the report in the order things happened.
	child.stdout?.on("data", (chunk: Buffer) => tail.push(chunk));
	child.stderr?.on("data", (chunk: Buffer) => tail.push(chunk));
	const closed = new Promise<void>((done) => child.once("close", () => done()));
	const exited = new Promise<Ending>((done) => {
		child.once("exit", (code) => done({ by: "exit", code }));
		child.once("error", (error) => done({ by: "error", error }));
	});
	let timer: LongTimer | undefined;
	let onAbort: (() => void) | undefined;
	const halt = new Promise<Ending>((done) => {
		// Chunked, so a deadline longer than one setTimeout holds is still kept, not fired at once.
		timer = longTimeout(() => {
			done({ by: "halt", halt: { kind: "timeout", message: `timed out after ${formatDuration(request.timeoutMs)}` } });
		}, request.timeoutMs);
		const signal = request.signal;
		if (signal) {
			onAbort = () => done({ by: "halt", halt: haltOf(signal) });
			signal.addEventListener("abort", onAbort, { once: true });
		}
	});
	const ending = await Promise.race([exited, halt]);
	timer?.clear();
	if (onAbort) request.signal?.removeEventListener("abort", onAbort);
	if (ending.by === "error") {
		return {
			ok: false,
			kind: "unavailable",
			message: `bash could not start in ${request.cwd}: ${ending.error.message}`,
			report: redactText(tail.text()),
		};
	}
	if (child.pid !== undefined) await killGroup(child.pid, graceMs);
	const last = ending.by === "exit" ? ending : await exited;
	await settle(child, closed);
	// Masked before it reaches the journal or a prompt: a script that prints `env` prints the keys too.
	const report = redactText(tail.text());
	if (ending.by === "halt") return { ok: false, ...ending.halt, report };
	const code = last.by === "exit" ? last.code : null;
	return { ok: true, passed: code === 0, report, exitCode: code, ms: Math.round(performance.now() - started) };
}

/** Sends `signal` to the whole group; false once nobody is left in it. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		// ESRCH: the group is empty, which is the goal; EPERM cannot happen for our own children.
		return false;
	}
}

/**
 * SIGTERM to the group, then SIGKILL if anyone is still in it after `graceMs`. Returns once the group is
 * empty or SIGKILL is sent: under an init that does not reap, orphans stay as zombies and would keep the
 * group "alive" forever, so the wait is bounded.
 */
async function killGroup(pid: number, graceMs: number): Promise<void> {
	if (!signalGroup(pid, "SIGTERM")) return;
	const until = performance.now() + graceMs;
	while (performance.now() < until) {
		await sleep(25);
		if (!signalGroup(pid, 0)) return;
	}
	signalGroup(pid, "SIGKILL");
}

/**
 * Waits for the output pipes to drain. A process that left the group (`setsid`) may still hold them, so
 * the wait is bounded and the pipes are then let go.
 */
async function settle(child: ChildProcess, closed: Promise<void>): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const gaveUp = await Promise.race([
		closed.then(() => false),
		new Promise<boolean>((done) => (timer = setTimeout(() => done(true), SETTLE_MS))),
	]);
	clearTimeout(timer);
	if (gaveUp) {
		child.stdout?.destroy();
		child.stderr?.destroy();
	}
}

/** How long pipes may stay open once the group is dead: only an escaped process can hold them. */
const SETTLE_MS = 1000;

function sleep(ms: number): Promise<void> {
	return new Promise((done) => setTimeout(done, ms));
}
