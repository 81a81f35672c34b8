/**
 * `pi-flows run <flow> [input]`: find, check, resolve every model, then run, in that order, so nothing
 * spawns for a flow that would fail to start. Exit 0 (ok), 1 (the run failed: which node, why), 2 (bad
 * usage, or a flow/script/model that does not check; nothing spawned).
 */
import { loadRoster } from "../agents/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { DRY_ASK, DRY_CHECK, dryGit, drySpawn, instantClock, resolveModels } from "../engine/index.ts";
import { runFlow } from "../kinds/run.ts";
import { findFlow } from "../load/index.ts";
import type { ReuseSource } from "../engine/index.ts";
import { findRun, reuseFromFolder } from "../reuse/index.ts";
import { rerunOf } from "./rerun-flag.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import { commandAsk } from "./ask.ts";
import { openHost } from "../pi/index.ts";
import { withSubagentTool } from "../delegate/index.ts";
import type { Script } from "../script/index.ts";
import { type LaunchStage, prepareLaunch, readInput, readLaunchScript } from "../launch/index.ts";
import { runsHome, startRun } from "../runs/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { printOutcome, terminalWorld } from "./launch.ts";
import { parentTrace, readRunFlags } from "./run-flags.ts";
import { backendOf } from "./backend.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { displayPath, formatFaults } from "./output.ts";
import type { Fault } from "../faults/index.ts";

/** Runs the `run` command. */
export async function runCommand(args: Args, io: Io): Promise<number> {
	const [name, ...rest] = args.positionals;
	if (!name) {
		io.stderr("usage: pi-flows run <flow name or path> [input] [--model M] [--script FILE] [--json] [--project]");
		return 2;
	}
	const rawInput = rest.join(" ");
	const scope = { project: cliTrusted(args, io) };
	const found = findFlow(name, io.cwd, scope, io.env);
	if (!found.ok) {
		io.stderr(`pi-flows: ${found.error}`);
		return 2;
	}
	const roster = loadRoster(io.cwd, scope, io.env);
	const checked = checkFlowFile(found.value.file, roster, catalogueOptions(io.cwd, scope, io.env));
	if (!checked.value) {
		io.stderr(formatFaults(checked.faults, io.cwd));
		io.stderr(
			`pi-flows: ${found.value.name} does not check (${checked.faults.length} fault${checked.faults.length === 1 ? "" : "s"}); nothing was run`,
		);
		return 2;
	}
	return runChecked(checked.value, rawInput, args, io);
}

/**
 * Runs a flow that checks: the input and this command's flags, then the preparation every surface shares
 * (script, run stage, host, models, budget; see `src/launch`), then the run folder.
 */
export async function runChecked(
	flow: CheckedFlow,
	rawInput: string,
	args: Args,
	io: Io,
	showFaults?: (faults: readonly Fault[]) => void,
): Promise<number> {
	const name = flow.name.value;
	const input = readInput(rawInput, flow.input.value, { flow: name, usage: `pi-flows run ${name} <input>` });
	if (!input.ok) {
		io.stderr(`pi-flows: ${input.error}`);
		return 2;
	}
	const flags = readRunFlags(args);
	if (!flags.ok) {
		io.stderr(`pi-flows: ${flags.error}`);
		return 2;
	}
	const { timeoutMs, idleMs, budget, transport, model, script: scriptPath } = flags.value;
	const rerun = rerunOf(args, flow);
	if (!rerun.ok) {
		io.stderr(`pi-flows: ${rerun.error}; nothing was run`);
		return 2;
	}
	const rerunFrom = rerun.value;
	const show = showFaults ?? ((f: readonly Fault[]) => io.stderr(formatFaults(f, io.cwd)));
	if (args.flags.has("dry-run")) {
		const read = scriptPath ? readLaunchScript(flow, io.cwd, scriptPath) : undefined;
		if (read && !read.ok) return refuse(read, scriptPath, show, io);
		return dryRun(flow, input.value, read?.value, args, io);
	}
	const ask = commandAsk(args.flags.has("ask-web"));
	const world = terminalWorld(io);
	try {
		const prepared = await prepareLaunch(flow, {
			cwd: io.cwd,
			openHost: (script, transport) =>
				openHost({
					cwd: io.cwd,
					agentDir: io.agentDir,
					projectTrusted: cliTrusted(args, io),
					...(script ? { script } : {}),
					...(transport ? { transport } : {}),
				}),
			...(model ? { model } : {}),
			...(scriptPath ? { script: scriptPath } : {}),
			...(budget ? { budget } : {}),
			...(transport ? { transport } : {}),
			git: world.git,
			somebodyThere: ask.somebodyThere,
		});
		if (!prepared.ok) return refuse(prepared, scriptPath, show, io);
		const { host, runOptions } = prepared;
		const handoff = await resolveHandoffPolicy({
			cwd: io.cwd,
			agentDir: io.agentDir,
			env: io.env,
			projectTrusted: cliTrusted(args, io),
		});
		for (const w of handoff.warnings) io.stderr(`pi-flows: ${w}`);
		const backend = backendOf(args, io);
		if (!backend.ok) {
			io.stderr(`pi-flows: ${backend.error}`);
			return 2;
		}
		if (backend.skipped) io.stderr(`pi-flows: ${backend.skipped}`);
		if (backend.value === "dbos") {
			// The same checks ran here; the run itself goes to the database and its workers.
			const { runDistributed } = await import("./distributed.ts");
			return await runDistributed(
				{
					flow,
					input: input.value,
					scripts: runOptions.scripts,
					onEvent: world.onEvent,
					signal: world.signal,
					ask,
					...(args.flags.has("reuse") ? { reuse: flag(args, "reuse") ?? "last" } : {}),
					settings: {
						cwd: io.cwd,
						...(rerunFrom ? { rerunFrom } : {}),
						// A person following at this terminal answers the workers' questions.
						somebodyThere: ask.somebodyThere,
						...(runOptions.model ? { model: runOptions.model } : {}),
						...(timeoutMs !== undefined ? { timeoutMs } : {}),
						...(idleMs !== undefined ? { idleTimeoutMs: idleMs } : {}),
						...(runOptions.budget ? { budget: runOptions.budget } : {}),
						...(runOptions.script ? { script: runOptions.script } : {}),
					},
				},
				args,
				io,
			);
		}
		const home = runsHome(io.cwd, flag(args, "runs-dir"));
		const reuse = args.flags.has("reuse") ? reuseOfFolder(args, home, flow, io, rerunFrom) : undefined;
		if (reuse && "error" in reuse) {
			io.stderr(`pi-flows: ${reuse.error}; nothing was run`);
			return 2;
		}
		if (reuse) io.stderr(`pi-flows: reusing what did not change from ${displayPath(reuse.from, io.cwd)}`);
		const outcome = await startRun(flow, input.value, {
			...runOptions,
			...(reuse ? { reuse } : {}),
			...(reuse && rerunFrom ? { rerunFrom } : {}),
			toolSchemas: host.toolSchemas,
			runsHome: home,
			handoff: handoff.policy,
			keyDir: io.agentDir,
			spawn: withSubagentTool(host, io.cwd, { project: cliTrusted(args, io) }, runOptions.model),
			cwd: io.cwd,
			signal: world.signal,
			ask,
			git: world.git,
			check: world.check,
			somebodyThere: ask.somebodyThere,
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			...(idleMs !== undefined ? { idleTimeoutMs: idleMs } : {}),
			onEvent: world.onEvent,
			...parentTrace(io.env),
		});
		if ("refused" in outcome) {
			io.stderr(`pi-flows: ${outcome.refused}`);
			return 2;
		}
		return printOutcome(outcome, args, io);
	} finally {
		await world.done();
	}
}

/** The earlier run `--reuse` names, opened as a source (its seal checked), or why it cannot be. */
function reuseOfFolder(
	args: Args,
	home: string,
	flow: CheckedFlow,
	io: Io,
	force: readonly string[] | undefined,
): ReuseSource | { error: string } {
	const found = findRun(flag(args, "reuse"), home, flow.name.value, io.cwd, io.agentDir);
	if (!found.ok) return { error: found.error };
	const opened = reuseFromFolder(found.runDir, io.agentDir, force ? { force } : {});
	return opened.ok ? opened.source : { error: opened.error };
}

/** A launch refused: its faults at their columns, then its lines, then what was (not) run. */
function refuse(
	refusal: { stage: LaunchStage; faults: readonly Fault[]; lines: readonly string[]; unreadable?: string },
	scriptPath: string | undefined,
	show: (faults: readonly Fault[]) => void,
	io: Io,
): number {
	if (refusal.unreadable) {
		io.stderr(`pi-flows: cannot read the script ${scriptPath}`);
		return 2;
	}
	// A model name written in a file is a fault at its column; the run's --model and pi's settings have none.
	if (refusal.faults.length && refusal.stage === "models") show(refusal.faults);
	else if (refusal.faults.length) io.stderr(formatFaults(refusal.faults, io.cwd));
	for (const line of refusal.lines) io.stderr(`pi-flows: ${line}`);
	io.stderr(
		refusal.stage === "script"
			? "pi-flows: the script does not check; nothing was run"
			: refusal.stage === "stage"
				? "pi-flows: the flow cannot start here; nothing was run"
				: "pi-flows: nothing was run",
	);
	return 2;
}

/** `--dry-run`: the same walk with zero model calls, printing each visit and its value. */
async function dryRun(
	flow: CheckedFlow,
	input: Value,
	script: Script | undefined,
	args: Args,
	io: Io,
): Promise<number> {
	const world = terminalWorld(io);
	try {
		const models = resolveModels(flow, () => ({ ok: true, value: { ref: "dry-run" } }));
		const skipped: string[] = [];
		const result = await runFlow(flow, input, {
			spawn: drySpawn(script, (note) => skipped.push(note)),
			models: models.ok ? models.models : new Map(),
			cwd: io.cwd,
			signal: world.signal,
			ask: DRY_ASK,
			check: DRY_CHECK,
			git: dryGit(io.cwd),
			clock: instantClock(),
			retryBackoffMs: 0,
		});
		if (args.flags.has("json")) io.stdout(JSON.stringify(skipped.length ? { ...result, skipped } : result, null, 2));
		else {
			for (const v of result.visits) {
				const value =
					v.output === undefined
						? ""
						: ` → ${truncate(typeof v.output === "string" ? v.output : JSON.stringify(v.output))}`;
				io.stdout(`${v.ok ? "✓" : "✗"} ${v.path} · ${v.agent ?? v.kind}${v.error ? ` · ${v.error}` : value}`);
			}
			for (const note of skipped) io.stdout(`– skipped (a dry run has no model): ${note}`);
		}
		io.stderr(
			`${result.ok ? "✓" : "✗"} ${flow.name.value} (dry run) · ${result.visits.length} visit(s) · 0 model calls${result.ok ? "" : ` · failed at ${result.failedAt}: ${result.error}`}`,
		);
		return result.ok ? 0 : 1;
	} finally {
		await world.done();
	}
}

function truncate(text: string, max = 100): string {
	const one = text.replace(/\s+/g, " ");
	return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
