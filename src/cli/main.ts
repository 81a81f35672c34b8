/**
 * The `pi-flows` command: run, check, plan, graph and list flows from a terminal, and print the frontmatter's
 * schema. `main` takes its world as arguments so tests drive it in-process; the last lines run it when this
 * file is the program.
 */
import { agentDir } from "../agents/index.ts";
import { type Args, type FlagSpec, parseArgs } from "./args.ts";
import { commandHelp, usage } from "./help.ts";
import type { Io } from "./io.ts";
import { CHAIN_CLI_FLAGS } from "../chain/index.ts";
import { redactText } from "../secrets/index.ts";

const COMMANDS: Record<string, FlagSpec> = {
	run: {
		model: true,
		script: true,
		json: false,
		project: false,
		timeout: true,
		"dry-run": false,
		"idle-timeout": true,
		"runs-dir": true,
		"budget-tokens": true,
		"budget-cost": true,
		"budget-turns": true,
		retries: true,
		"retry-wait": true,
		backend: true,
		database: true,
		reuse: "optional",
		"rerun-from": true,
		"ask-web": false,
	},
	resume: {
		json: false,
		timeout: true,
		"runs-dir": true,
		retries: true,
		"retry-wait": true,
		"in-doubt": true,
		"take-lock": false,
		"ask-web": false,
		"budget-tokens": true,
		"budget-cost": true,
		"budget-turns": true,
		backend: true,
		database: true,
	},
	check: { json: false, project: false },
	test: { project: false },
	chain: {
		goal: true,
		model: true,
		script: true,
		json: false,
		project: false,
		timeout: true,
		"runs-dir": true,
		"dry-run": false,
		"idle-timeout": true,
		"budget-tokens": true,
		"budget-cost": true,
		"budget-turns": true,
		retries: true,
		"retry-wait": true,
		...CHAIN_CLI_FLAGS,
	},
	drive: { agent: true, model: true, script: true, "max-turns": true, "log-dir": true, project: false, fresh: false },
	list: { json: false, project: false },
	plan: {
		json: false,
		project: false,
		reuse: "optional",
		"rerun-from": true,
		backend: true,
		database: true,
		model: true,
		timeout: true,
		"runs-dir": true,
		"budget-tokens": true,
		"budget-cost": true,
		"budget-turns": true,
	},
	graph: { project: false },
	report: { out: true, "runs-dir": true, database: true },
	schema: {},
	script: { project: false, test: false, out: true },
	lsp: { stdio: false, clientProcessId: true },
	mcp: {
		project: false,
		model: true,
		script: true,
		timeout: true,
		"idle-timeout": true,
		"runs-dir": true,
		"budget-tokens": true,
		"budget-cost": true,
		"budget-turns": true,
		retries: true,
		"retry-wait": true,
		backend: true,
		database: true,
		http: false,
		port: true,
		wait: true,
	},
	provider: { "agent-dir": true, name: true },
	worker: { database: true, slots: true, "poll-ms": true, "dead-after-ms": true, "retry-for-ms": true, project: false },
	runs: { database: true, json: false, limit: true },
	stop: { database: true },
	serve: { host: true, port: true, project: false, "runs-dir": true, database: true },
};

/** A command's code, loaded only when that command runs: `--help` and `check` never load pi's runtime. */
type Runner = () => Promise<(args: Args, io: Io) => number | Promise<number>>;

/**
 * Where each command's code lives, one `import()` per command (docs/decisions.md). A command of `COMMANDS`
 * missing here is refused as unknown; test/cli/help.test.ts catches that for every command.
 */
const RUNNERS: Record<string, Runner> = {
	run: async () => (await import("./run.ts")).runCommand,
	resume: async () => (await import("./resume.ts")).resumeCommand,
	check: async () => (await import("./check.ts")).checkCommand,
	test: async () => (await import("./test.ts")).testCommand,
	chain: async () => (await import("./chain.ts")).chainCommand,
	drive: async () => (await import("./drive.ts")).driveCommand,
	list: async () => (await import("./check.ts")).listCommand,
	plan: async () => (await import("./plan.ts")).planCommand,
	graph: async () => (await import("./graph.ts")).graphCommand,
	report: async () => (await import("./report.ts")).reportCommand,
	schema: async () => (await import("./schema.ts")).schemaCommand,
	script: async () => (await import("./script.ts")).scriptCommand,
	lsp: async () => (await import("./lsp.ts")).lspCommand,
	mcp: async () => (await import("./mcp.ts")).mcpCommand,
	provider: async () => (await import("./provider.ts")).providerCommand,
	worker: async () => (await import("./distributed.ts")).workerCommand,
	runs: async () => (await import("./distributed.ts")).runsCommand,
	stop: async () => (await import("./distributed.ts")).stopCommand,
	serve: async () => (await import("./serve.ts")).serveCommand,
};

/**
 * The commands that run flows: they register the OpenTelemetry SDK when the environment asks for an OTLP
 * exporter (docs/observability.md), and export what they traced before the command's exit code is given.
 */
const TRACED = new Set(["run", "resume", "chain", "worker", "mcp"]);

/** The commands and their flags, for the help walk in tests and for `pi-flows help`. */
export const COMMAND_SPECS: Readonly<Record<string, FlagSpec>> = COMMANDS;

/** `--help` or `-h` before a `--`: the command's help instead of a run. */
function wantsHelp(rest: readonly string[]): boolean {
	const end = rest.indexOf("--");
	return (end < 0 ? rest : rest.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Runs one invocation; resolves to the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
	const [command, ...rest] = argv;
	if (!command || command === "--help" || command === "-h") {
		(command ? io.stdout : io.stderr)(usage(COMMANDS));
		return command ? 0 : 2;
	}
	if (command === "help") {
		const topic = rest[0];
		if (!topic) {
			io.stdout(usage(COMMANDS));
			return 0;
		}
		if (!COMMANDS[topic]) {
			io.stderr(`pi-flows help: unknown command \`${topic}\`\n${usage(COMMANDS)}`);
			return 2;
		}
		io.stdout(commandHelp(topic, COMMANDS[topic]));
		return 0;
	}
	const spec = COMMANDS[command];
	const runner = RUNNERS[command];
	if (!spec || !runner) {
		io.stderr(`pi-flows: unknown command \`${command}\`\n${usage(COMMANDS)}`);
		return 2;
	}
	if (wantsHelp(rest)) {
		io.stdout(commandHelp(command, spec));
		return 0;
	}
	const parsed = parseArgs(rest, spec);
	if (!parsed.ok) {
		io.stderr(`pi-flows ${command}: ${parsed.error}\n${commandHelp(command, spec).split("\n")[0]}`);
		return 2;
	}
	let run: Awaited<ReturnType<Runner>>;
	try {
		run = await runner();
	} catch (error) {
		// A part that cannot load (a broken install, a missing optional dependency) costs this command only.
		const why = error instanceof Error ? error.message : String(error);
		io.stderr(
			`pi-flows ${command}: this command's code cannot be loaded (${why}); the other commands are unaffected. Reinstalling pi-flows repairs it.`,
		);
		return 70;
	}
	if (!TRACED.has(command)) return run(parsed.value, io);
	const { startTelemetry } = await import("../telemetry/export/index.ts");
	const telemetry = await startTelemetry(io.env, (line) => io.stderr(`pi-flows: ${line}`));
	try {
		return await run(parsed.value, io);
	} finally {
		if (telemetry && !(await telemetry.shutdown())) exportGivenUp = true;
	}
}

/** A trace export was given up at the end of the command: the process ends without waiting for it. */
let exportGivenUp = false;

/** The process's own world. */
export function processIo(): Io {
	return {
		cwd: process.cwd(),
		env: process.env,
		agentDir: agentDir(process.env),
		// Every line the command prints is masked here, whichever part of pi-flows said it.
		stdout: (t) => process.stdout.write(`${redactText(t)}\n`),
		stderr: (t) => process.stderr.write(`${redactText(t)}\n`),
	};
}

if (import.meta.main) {
	main(process.argv.slice(2), processIo()).then(
		(code) => {
			process.exitCode = code;
			// A collector that never answers must not hold the command past the export's bound.
			if (exportGivenUp) process.exit(code);
		},
		(error: unknown) => {
			// A programming error: say so plainly, with the stack for the bug report.
			process.stderr.write(
				redactText(
					`pi-flows: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
				),
			);
			process.exitCode = 70;
		},
	);
}
