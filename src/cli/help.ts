/**
 * Help text, rendered from the same flag spec the parser uses (`COMMANDS` in main.ts), so a flag added to a
 * command shows in `pi-flows <command> --help` and in the usage without a second edit. This module carries
 * only words: what each command is for, what its positionals are, what each flag means. It imports nothing
 * but the spec's type, so `pi-flows --help` (and `<command> --help`) loads main.ts, this, the parser, the
 * redaction every printed line passes and the fault helpers behind a did-you-mean (16 of our modules when
 * this was written; docs/cli.md gives the count test/cli/help-loads.test.ts holds), one package
 * (fastest-levenshtein), and no command's code.
 *
 * Input: a command's name and its {@link FlagSpec}. Output: the text printed on stdout. Example:
 * `commandHelp("graph", { project: false })` gives `usage: pi-flows graph <flow> [--project]`, the summary,
 * and one line per flag.
 */
import type { FlagSpec } from "./args.ts";

/** What a command says about itself: its positionals (as written in a usage line) and one sentence. */
export interface CommandDoc {
	/** Positionals as in a usage line, e.g. `<flow> [input]`; empty when there are none. */
	args: string;
	/** One sentence: what the command does. */
	summary: string;
	/** More lines after the flags (exit codes, notes); optional. */
	notes?: string;
}

/** What a flag says about itself: the placeholder of its value (value-taking flags) and one sentence. */
export interface FlagDoc {
	/** The value's placeholder, e.g. `FILE`; only for flags that take a value. */
	value?: string;
	text: string;
}

/** Every command's words. A command missing here still gets a help page; a test insists on the words. */
export const COMMAND_DOCS: Record<string, CommandDoc> = {
	run: {
		args: "<flow> [input]",
		summary: "check the flow, resolve every model, then run it in a run folder; the answer on stdout",
		notes: "exit: 0 ok · 1 the run failed (resumable) · 2 bad usage or nothing could start",
	},
	resume: {
		args: "[run]",
		summary: "continue a run from its journal (the newest resumable one when none is named)",
		notes: "exit: as run",
	},
	check: {
		args: "[paths...]",
		summary: "judge flow files without running them; no path: every flow found",
		notes: "exit: 0 clean · 1 faults · 2 bad usage",
	},
	test: {
		args: "[files...]",
		summary: "run flow tests (*.test.yaml beside a flow) on the scripted model, or replaying a recorded run's cassette",
		notes: "exit: 0 all passed · 1 any failed; cassettes replay strict by default, lockdown when CI is set",
	},
	record: {
		args: "[run]",
		summary:
			"keep a finished run (the newest when none is named) as a cassette beside its flow, with a flow test that replays it",
		notes: "exit: 0 written · 1 refused by --strict · 2 bad usage or no such finished run; see docs/scripted-model.md",
	},
	chain: {
		args: '"<@a -> @b --model p/m -> \\"goal\\">" [goal]',
		summary: "run a chain: every step's flags applied, handoff summaries between steps",
		notes: "exit: as run",
	},
	drive: {
		args: "TASK.md",
		summary: "the unattended handoff chain: a fresh context per turn, each ending on a handoff",
		notes: "exit: 0 complete · 2 max turns · 3 no handoff · 4 blocked · 130 stopped",
	},
	list: { args: "", summary: "every flow found, its source, and whether it checks" },
	plan: {
		args: "<flow> [input]",
		summary:
			"what the flow would run, node by node, with models, timeouts and worst cases; with --reuse, which visits an earlier run saves (input: the earlier run's unless given)",
	},
	graph: { args: "<flow>", summary: "the flow's shape as a Mermaid flowchart" },
	report: {
		args: "[run]",
		summary: "one self-contained HTML page of a run (default <run>/report.html; no run: the newest)",
	},
	script: {
		args: "<flow>",
		summary:
			"a starter script for the scripted model, one entry per agent node with a valid example answer (--test: a whole flow test)",
	},
	schema: { args: "", summary: "the JSON Schema of a flow's frontmatter, for editors" },
	lsp: { args: "", summary: "the flow language server on stdin/stdout, for editors" },
	worker: {
		args: "",
		summary:
			"join a Postgres database as a worker of the DBOS backend: run its runs and map items until stopped (Ctrl-C)",
		notes: "the database comes from --database or PI_FLOWS_DATABASE_URL; see docs/distributed.md",
	},
	runs: { args: "", summary: "the runs in a DBOS backend's database, newest first, with their status" },
	serve: {
		args: "",
		summary:
			"watch and steer runs from a browser: a local page, live, with answer, stop, resume and rerun from a node (docs/web.md)",
		notes: "prints the URL with a one-time token; loopback only unless --host",
	},
	stop: { args: "<run id>", summary: "ask a run on the DBOS backend to stop, from any machine reaching its database" },
	mcp: {
		args: "",
		summary:
			"serve every flow as an MCP tool (plus chain, flow_check, flow_plan, runs, run_status, run_result, run_stop, run_resume) over stdio, or streamable HTTP on 127.0.0.1 with --http",
		notes:
			"protocol: 2026-07-28 (with the Tasks extension) and the 2025 era (2024-11-05 … 2025-11-25); HTTP takes the bearer token from PI_FLOWS_MCP_TOKEN, else a new one written to <agentDir>/pi-flows-mcp.token; --backend dbos runs on the database's workers; see docs/mcp.md",
	},
	provider: {
		args: "[script.yaml]",
		summary:
			"a scripted OpenAI/Anthropic provider on 127.0.0.1 (faults included), for testing flows over HTTP; writes a models.json naming it",
	},
};

/** Every flag's words, shared by the commands that take it (one meaning per flag name). */
export const FLAG_DOCS: Record<string, FlagDoc> = {
	model: { value: "M", text: "run every node on this model (provider/id, as pi reads it)" },
	script: { value: "FILE", text: "answer every turn from this script on the scripted model: no network, no key" },
	json: { text: "print JSON instead of text" },
	project: { text: "also read the project's .pi/flows, .pi/agents, .pi/skills and .pi/prompts (repository content)" },
	timeout: { value: "D", text: "bound every turn by this duration (e.g. 90s, 5m), replacing the flow's" },
	"idle-timeout": { value: "D", text: "bound a turn's silence (default 5m)" },
	"dry-run": { text: "walk the flow with zero model calls" },
	"runs-dir": { value: "DIR", text: "where run folders live (default .pi/runs)" },
	"budget-tokens": { value: "N", text: "stop starting turns once the run has used this many tokens" },
	"budget-cost": { value: "N", text: "stop starting turns once the run has cost this many dollars" },
	"budget-turns": { value: "N", text: "stop starting turns after this many turns" },
	"in-doubt": { value: "rerun|stop", text: "what to do with a visit that was running when the run stopped" },
	"take-lock": { text: "take over a run whose lock another process left behind" },
	reuse: {
		value: "last|RUN",
		text: "take every visit whose identity is unchanged from an earlier run instead of playing it (default last)",
	},
	"rerun-from": {
		value: "NODE[,NODE]",
		text: "with --reuse: play these nodes again whatever their identity (what reads them runs if what they answer changed)",
	},
	"ask-web": { text: "with no terminal, questions wait for an answer given in `pi-flows serve`'s page" },
	backend: {
		value: "folder|dbos",
		text: "where the run lives: a run folder (default) or the DBOS backend's database (PI_FLOWS_BACKEND)",
	},
	database: { value: "URL", text: "the DBOS backend's Postgres URL (default PI_FLOWS_DATABASE_URL; never printed)" },
	slots: { value: "N", text: "map items this worker runs at once (default 8)" },
	"poll-ms": { value: "MS", text: "how often the worker polls the queues (default 20)" },
	"dead-after-ms": { value: "MS", text: "a worker silent this long is dead; its work is taken over (default 3000)" },
	"retry-for-ms": { value: "MS", text: "how long a query retries a lost database connection (default 60000)" },
	limit: { value: "N", text: "at most this many (default 50)" },
	host: {
		value: "H",
		text: "listen on this address and answer to it as a name (default 127.0.0.1; beyond loopback it warns)",
	},
	goal: { value: "G", text: "the chain's goal (instead of the last quoted step)" },
	agent: { value: "A", text: "the agent that plays every turn" },
	"max-turns": { value: "N", text: "stop after this many turns" },
	"log-dir": { value: "DIR", text: "where each turn's log goes" },
	fresh: { text: "start the drive over from TASK.md, ignoring the journal and HANDOFF.md of an earlier drive" },
	out: { value: "FILE", text: "where the output goes (report: the HTML page; script: the YAML)" },
	test: { text: "write a whole flow test (*.test.yaml) rather than a bare script" },
	replay: {
		value: "strict|warn|lockdown",
		text: "how a cassette replays: any difference fails (strict), is reported (warn), or strict with no network (lockdown; the default when CI is set)",
	},
	strict: { text: "refuse to write a cassette holding a secret-shaped value (they are redacted and named otherwise)" },
	refresh: {
		value: "NODE",
		text: "run the cassette's run again on its real model, reusing every visit but NODE's, and record that run",
	},
	retries: {
		value: "N",
		text: "tries per provider request on a transient fault (429, 529, 5xx, a cut stream); default 8",
	},
	"retry-wait": { value: "D", text: "the longest total wait for one request's retries (default 5m)" },
	"agent-dir": { value: "DIR", text: "the pi agent folder whose models.json gets the provider (default: pi's)" },
	name: {
		value: "N",
		text: "provider: its name in models.json (default wire); record: the cassette's name (default recorded)",
	},
	"global-model": { value: "M", text: "chain-wide: the model of every step that names none (as after the chain's --)" },
	"global-skill": { value: "S[,S]", text: "chain-wide: skills added to every step" },
	"global-thinking": { value: "LEVEL", text: "chain-wide: the thinking level of every step that sets none" },
	"budget-total": { value: "N", text: "chain-wide: stop starting steps past this many tokens" },
	"budget-warning": { value: "N", text: "chain-wide: warn once the chain has used this many tokens" },
	retry: { value: "N", text: "chain-wide: how many times a failed step runs again" },
	backoff: { value: "D", text: "chain-wide: the wait before a step's first retry, doubling after" },
	"max-history": { value: "N", text: "chain-wide: how many earlier steps' summaries a step sees" },
	"continue-on-error": { text: "chain-wide: a failed step does not stop the chain" },
	http: { text: "serve streamable HTTP on 127.0.0.1 instead of stdio (a bearer token; Host and Origin checked)" },
	port: { value: "N", text: "the port to listen on (default 0: a free port, printed at start)" },
	wait: {
		value: "D",
		text: "how long a tool call waits for its run before returning a handle that run_status and run_result follow (default 25s)",
	},
	stdio: { text: "speak LSP on stdin/stdout (the default, accepted for editors that pass it)" },
	clientProcessId: { value: "PID", text: "the editor's process id (passed by editors; accepted and ignored)" },
};

const INDENT = "      ";

/** One flag as a usage fragment: `--model M`, `--json`, `--reuse [RUN]`. */
function flagUsage(name: string, takesValue: boolean | "optional"): string {
	const value = FLAG_DOCS[name]?.value ?? "VALUE";
	if (takesValue === "optional") return `--${name} [${value}]`;
	return takesValue ? `--${name} ${value}` : `--${name}`;
}

/** Wraps fragments into lines under `width` characters, continuation lines indented. */
function wrap(head: string, parts: readonly string[], width = 110): string {
	const lines: string[] = [];
	let line = head;
	for (const part of parts) {
		if (line.length + part.length + 1 > width && line.trim()) {
			lines.push(line);
			line = INDENT;
		}
		line += `${line.endsWith(" ") || !line ? "" : " "}${part}`;
	}
	lines.push(line);
	return lines.join("\n");
}

/** The usage line(s) of one command: name, positionals, every flag in the spec. */
export function usageLine(command: string, spec: FlagSpec, prefix = "pi-flows "): string {
	const doc = COMMAND_DOCS[command];
	const parts = [
		doc?.args ?? "[args...]",
		...Object.entries(spec).map(([name, value]) => `[${flagUsage(name, value)}]`),
	].filter(Boolean);
	return wrap(`${prefix}${command}`, parts);
}

/** `pi-flows <command> --help`: usage, summary, one line per flag, notes. */
export function commandHelp(command: string, spec: FlagSpec): string {
	const doc = COMMAND_DOCS[command];
	const out = [`usage: ${usageLine(command, spec)}`, "", doc?.summary ?? "(no description)"];
	const flags = Object.entries(spec);
	if (flags.length) {
		out.push("", "flags:");
		const left = flags.map(([name, value]) => flagUsage(name, value));
		const pad = Math.max(...left.map((l) => l.length)) + 2;
		for (const [i, [name]] of flags.entries())
			out.push(`  ${left[i].padEnd(pad)}${FLAG_DOCS[name]?.text ?? ""}`.trimEnd());
	}
	out.push("", `  --help, -h  this page (also: pi-flows help ${command})`);
	if (doc?.notes) out.push("", doc.notes);
	return out.join("\n");
}

/** `pi-flows --help`: every command's usage and summary. */
export function usage(commands: Readonly<Record<string, FlagSpec>>): string {
	const out = ["usage: pi-flows <command> [...]", ""];
	for (const [name, spec] of Object.entries(commands)) {
		out.push(`  ${usageLine(name, spec, "")}`.replace(/\n/g, `\n  `));
		out.push(`        ${COMMAND_DOCS[name]?.summary ?? ""}`.trimEnd());
	}
	out.push("", "pi-flows <command> --help (or pi-flows help <command>) for one command's flags.");
	return out.join("\n");
}
