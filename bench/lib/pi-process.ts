/**
 * One subagent turn the way pi subagent extensions usually run one: a `pi -p` process per turn. The model is
 * a faux provider registered by a small extension written to a temp folder at bench time, answering `ok`.
 *
 * An extension loaded by the pi CLI resolves pi's packages through the CLI's own module map, which has
 * `@earendil-works/pi-ai` (an "extension view" that exports `fauxProvider`) but not the subpath
 * `@earendil-works/pi-ai/providers/faux`, and a temp folder has no node_modules to fall back on. So
 * {@link prepareProcessTurn} tries the subpath first and, if it does not resolve, the package root.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The pi CLI's entry file (`bin.pi` of its package.json). */
export function piCli(): string {
	const dir = join(PACKAGE_ROOT, "node_modules", "@earendil-works", "pi-coding-agent");
	const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: string | Record<string, string> };
	const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.pi;
	return join(dir, bin);
}

const FAUX_PROVIDER = "benchfaux";
const FAUX_MODEL = "ok";

function extensionText(specifier: string): string {
	return `// Written by bench/engine.ts: a faux provider that answers "ok" to every request.
import { fauxAssistantMessage, fauxProvider } from "${specifier}";

export default function (pi: { registerProvider(provider: unknown): void }) {
	const faux = fauxProvider({ provider: "${FAUX_PROVIDER}", models: [{ id: "${FAUX_MODEL}" }] });
	faux.setResponses(Array.from({ length: 16 }, () => fauxAssistantMessage("ok")));
	pi.registerProvider(faux.provider);
}
`;
}

export interface ProcessRun {
	ms: number;
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to its end; `ms` is spawn to exit. */
export function runProcess(
	command: string,
	args: readonly string[],
	options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ProcessRun> {
	return new Promise((done, fail) => {
		const start = performance.now();
		const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
		child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
		child.on("error", fail);
		child.on("close", (code) => done({ ms: performance.now() - start, code, stdout, stderr }));
	});
}

export interface ProcessTurn {
	/** The import the extension uses, as it resolved. */
	specifier: string;
	/** The command line of one turn, for the record. */
	commandLine: string;
	/** One turn: a fresh `pi -p` process, to its exit; throws unless it answered `ok`. */
	turn(task: string): Promise<number>;
	/** A bare `node -e ""` start, to its exit: the floor of any process per turn. */
	nodeStart(): Promise<number>;
}

/** Writes the extension into `dir/ext/` and proves one turn answers before anything is timed. */
export async function prepareProcessTurn(dir: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ProcessTurn> {
	const cli = piCli();
	const extDir = join(dir, "ext");
	mkdirSync(extDir, { recursive: true });
	const ext = join(extDir, "faux-ok.ts");
	const argsFor = (task: string) => [
		cli,
		"--offline",
		"--no-session",
		"-ne",
		"-e",
		ext,
		"--model",
		`${FAUX_PROVIDER}/${FAUX_MODEL}`,
		"-p",
		task,
	];
	const failures: string[] = [];
	for (const specifier of ["@earendil-works/pi-ai/providers/faux", "@earendil-works/pi-ai"]) {
		writeFileSync(ext, extensionText(specifier));
		const probe = await runProcess(process.execPath, argsFor("probe"), { cwd, env });
		if (probe.code === 0 && probe.stdout.trim() === "ok") {
			return {
				specifier,
				commandLine: `PI_CODING_AGENT_DIR=<temp> node <pi cli> ${argsFor("<task>")
					.slice(1)
					.map((a) => (a === ext ? "<temp>/faux-ok.ts" : a))
					.join(" ")}`,
				turn: async (task) => {
					const r = await runProcess(process.execPath, argsFor(task), { cwd, env });
					if (r.code !== 0 || r.stdout.trim() !== "ok")
						throw new Error(`bench: a pi -p turn failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
					return r.ms;
				},
				nodeStart: async () => (await runProcess(process.execPath, ["-e", ""], { cwd, env })).ms,
			};
		}
		failures.push(`${specifier}: exit ${probe.code}: ${(probe.stderr || probe.stdout).trim().split("\n")[0]}`);
	}
	throw new Error(`bench: the faux extension did not load in the pi CLI:\n  ${failures.join("\n  ")}`);
}
