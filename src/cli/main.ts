/**
 * The `pi-flows` command: run, check, plan, graph and list flows from a terminal, and print the frontmatter's
 * schema. `main` takes its world as arguments so tests drive it in-process; the last lines run it when this
 * file is the program.
 */
import { agentDir } from "../agents/index.ts";
import { type FlagSpec, parseArgs } from "./args.ts";
import { checkCommand, listCommand } from "./check.ts";
import { graphCommand } from "./graph.ts";
import type { Io } from "./io.ts";
import { lspCommand } from "./lsp.ts";
import { planCommand } from "./plan.ts";
import { reportCommand } from "./report.ts";
import { resumeCommand } from "./resume.ts";
import { runCommand } from "./run.ts";
import { chainCommand } from "./chain.ts";
import { driveCommand } from "./drive.ts";
import { testCommand } from "./test.ts";
import { schemaCommand } from "./schema.ts";
import { scriptCommand } from "./script.ts";

const COMMANDS: Record<string, FlagSpec> = {
	run: { model: true, script: true, json: false, project: false, timeout: true, "dry-run": false, "idle-timeout": true, "runs-dir": true, "budget-tokens": true, "budget-cost": true, "budget-turns": true },
	resume: { json: false, timeout: true, "runs-dir": true, "in-doubt": true, "take-lock": false, "budget-tokens": true, "budget-cost": true, "budget-turns": true },
	check: { json: false, project: false },
	test: { project: false },
	chain: { goal: true, model: true, script: true, json: false, project: false, timeout: true, "runs-dir": true, "dry-run": false, "idle-timeout": true, "budget-tokens": true, "budget-cost": true, "budget-turns": true },
	drive: { agent: true, model: true, script: true, "max-turns": true, "log-dir": true, project: false },
	list: { json: false, project: false },
	plan: { json: false, project: false, model: true, timeout: true, "runs-dir": true },
	graph: { project: false },
	report: { out: true, "runs-dir": true },
	schema: {},
	script: { project: false, test: false, out: true },
	lsp: { stdio: false, clientProcessId: true },
};

const USAGE = `usage: pi-flows <command> [...]

  run <flow> [input] [--model M] [--script FILE] [--timeout D] [--idle-timeout D] [--budget-tokens N]
      [--budget-cost N] [--budget-turns N] [--runs-dir DIR] [--dry-run] [--json] [--project]
        check the flow, resolve every model, then run it in a run folder; the answer on stdout
  resume [run] [--in-doubt rerun|stop] [--take-lock] [--timeout D] [--budget-...]
        continue a run from its journal (the newest resumable one when none is named)
  chain "<@a -> @b --model p/m -> \"goal\">" [goal] [--goal G] [--script FILE]
        run a chain: every step's flags applied, handoff summaries between steps
  drive TASK.md [--max-turns N] [--agent A] [--model M] [--script FILE]
        the unattended handoff chain: a fresh context per turn, each ending on a handoff
  test [files...] [--project]  run flow tests (*.test.yaml beside a flow) on the scripted model
  check [paths...] [--json] [--project]
        judge flow files without running them (exit 1 on faults); no path: every flow found
  plan <flow> [--model M] [--timeout D] [--json] [--project]
        what the flow would run, node by node, with models, timeouts and worst cases
  graph <flow> [--project]    the flow's shape as a Mermaid flowchart
  report [run] [--out FILE] [--runs-dir DIR]
        one self-contained HTML page of a run (default <run>/report.html; no run: the newest)
  script <flow> [--test] [--out FILE] [--project]
        a starter script for the scripted model (--test: a whole flow test), one entry per agent node
  schema                      the JSON Schema of a flow's frontmatter, for editors
  lsp [--stdio]               the flow language server on stdin/stdout, for editors
  list [--json] [--project]   every flow found, its source, and whether it checks`;

/** Runs one invocation; resolves to the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
	const [command, ...rest] = argv;
	if (!command || command === "help" || command === "--help" || command === "-h") {
		(command ? io.stdout : io.stderr)(USAGE);
		return command ? 0 : 2;
	}
	const spec = COMMANDS[command];
	if (!spec) {
		io.stderr(`pi-flows: unknown command \`${command}\`\n${USAGE}`);
		return 2;
	}
	const parsed = parseArgs(rest, spec);
	if (!parsed.ok) {
		io.stderr(`pi-flows ${command}: ${parsed.error}`);
		return 2;
	}
	if (command === "run") return runCommand(parsed.value, io);
	if (command === "resume") return resumeCommand(parsed.value, io);
	if (command === "test") return testCommand(parsed.value, io);
	if (command === "chain") return chainCommand(parsed.value, io);
	if (command === "drive") return driveCommand(parsed.value, io);
	if (command === "check") return checkCommand(parsed.value, io);
	if (command === "plan") return planCommand(parsed.value, io);
	if (command === "graph") return graphCommand(parsed.value, io);
	if (command === "report") return reportCommand(parsed.value, io);
	if (command === "schema") return schemaCommand(parsed.value, io);
	if (command === "script") return scriptCommand(parsed.value, io);
	if (command === "lsp") return lspCommand(parsed.value, io);
	return listCommand(parsed.value, io);
}

/** The process's own world. */
export function processIo(): Io {
	return {
		cwd: process.cwd(),
		env: process.env,
		agentDir: agentDir(process.env),
		stdout: (t) => process.stdout.write(`${t}\n`),
		stderr: (t) => process.stderr.write(`${t}\n`),
	};
}

if (import.meta.main) {
	main(process.argv.slice(2), processIo()).then(
		(code) => {
			process.exitCode = code;
		},
		(error: unknown) => {
			// A programming error: say so plainly, with the stack for the bug report.
			process.stderr.write(`pi-flows: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
			process.exitCode = 70;
		},
	);
}
