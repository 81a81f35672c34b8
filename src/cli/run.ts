/**
 * `pi-flows run <flow> [input]`: find, check, resolve every model, then run, in that order, so nothing
 * spawns for a flow that would fail to start. Exit 0 (ok), 1 (the run failed: which node, why), 2 (bad
 * usage, or a flow/script/model that does not check; nothing spawned).
 */
import { resolve } from "node:path";
import { loadRoster } from "../agents/index.ts";
import {
	budgetInForce,
	type CheckedFlow,
	DRY_ASK,
	DRY_CHECK,
	dryGit,
	drySpawn,
	runFlow,
	findFlow,
	prepareRun,
	readyModels,
	resolveModels,
	scriptableAddresses,
	type Value,
} from "../flow/index.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import { durationFlagError, parseDuration } from "../flow/syntax/index.ts";
import { terminalAsk } from "./ask.ts";
import { openHost } from "../pi/index.ts";
import type { Script } from "../script/index.ts";
import { readInput, readScriptFile } from "../launch/index.ts";
import { chainRunOptions } from "../launch/index.ts";
import { runsHome, startRun } from "../runs/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { budgetFlags, report, terminalWorld, transportFlags } from "./launch.ts";
import { backendOf } from "./backend.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { formatFaults } from "./output.ts";
import type { Fault } from "../faults/index.ts";

/** Runs the `run` command. */
export async function runCommand(args: Args, io: Io): Promise<number> {
	const [name, ...rest] = args.positionals;
	if (!name) {
		io.stderr("usage: pi-flows run <flow name or path> [input] [--model M] [--script FILE] [--json] [--project]");
		return 2;
	}
	const rawInput = rest.join(" ");
	const scope = { project: args.flags.has("project") };
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

/** Runs a flow that checks: the script, the input, the run stage, the models, then the run folder. */
export async function runChecked(
	flow: CheckedFlow,
	rawInput: string,
	args: Args,
	io: Io,
	showFaults?: (faults: readonly Fault[]) => void,
): Promise<number> {
	let script: Script | undefined;
	let scriptText: string | undefined;
	const scriptPath = flag(args, "script");
	if (scriptPath) {
		const read = readScriptFile(resolve(io.cwd, scriptPath), scriptableAddresses(flow));
		if (!read.ok && read.unreadable) {
			io.stderr(`pi-flows: cannot read the script ${scriptPath}`);
			return 2;
		}
		if (!read.ok) {
			io.stderr(formatFaults(read.faults, io.cwd));
			io.stderr("pi-flows: the script does not check; nothing was run");
			return 2;
		}
		script = read.value;
		scriptText = read.text;
	}
	const name = flow.name.value;
	const input = readInput(rawInput, flow.input.value, { flow: name, usage: `pi-flows run ${name} <input>` });
	if (!input.ok) {
		io.stderr(`pi-flows: ${input.error}`);
		return 2;
	}
	const idleText = flag(args, "idle-timeout");
	const idleMs = idleText === undefined ? undefined : parseDuration(idleText);
	if (idleText !== undefined && idleMs === undefined) {
		io.stderr(`pi-flows: ${durationFlagError("--idle-timeout", idleText)}`);
		return 2;
	}
	const timeoutText = flag(args, "timeout");
	const timeoutMs = timeoutText === undefined ? undefined : parseDuration(timeoutText);
	if (timeoutText !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows: ${durationFlagError("--timeout", timeoutText)}`);
		return 2;
	}
	const chain = chainRunOptions(flow, io.cwd);
	const launch = budgetFlags(args, undefined);
	if (!launch.ok) {
		io.stderr(`pi-flows: ${launch.error}`);
		return 2;
	}
	// The flow's budget and its chain's both bind; a launch flag replaces its kind; a stated warning stays.
	const budget = { value: budgetInForce(flow, launch.value ?? {}).budget };
	const transport = transportFlags(args);
	if (!transport.ok) {
		io.stderr(`pi-flows: ${transport.error}`);
		return 2;
	}
	if (args.flags.has("dry-run")) return dryRun(flow, input.value, script, args, io);
	const ask = terminalAsk();
	const world = terminalWorld(io);
	try {
		const stage = await prepareRun(flow, { cwd: io.cwd, somebodyThere: ask.somebodyThere, git: world.git });
		if (!stage.ok) {
			io.stderr(formatFaults(stage.faults, io.cwd));
			io.stderr("pi-flows: the flow cannot start here; nothing was run");
			return 2;
		}
		const host = await openHost({
			cwd: io.cwd,
			agentDir: io.agentDir,
			projectTrusted: args.flags.has("project"),
			...(script ? { script } : {}),
			...(transport.value ? { transport: transport.value } : {}),
		});
		const runModel = flag(args, "model") ?? (script ? "scripted" : undefined);
		const models = await readyModels(flow, host, runModel);
		if (!models.ok) {
			// A model name written in a file is a fault at its column; the run's --model and pi's settings have none.
			if (models.faults?.length) (showFaults ?? ((f) => io.stderr(formatFaults(f, io.cwd))))(models.faults);
			for (const e of models.unplaced ?? models.errors) io.stderr(`pi-flows: ${e}`);
			io.stderr("pi-flows: nothing was run");
			return 2;
		}
		const handoff = await resolveHandoffPolicy({ cwd: io.cwd, agentDir: io.agentDir, env: io.env });
		for (const w of handoff.warnings) io.stderr(`pi-flows: ${w}`);
		const backend = backendOf(args, io);
		if (!backend.ok) {
			io.stderr(`pi-flows: ${backend.error}`);
			return 2;
		}
		if (backend.value === "dbos") {
			// The same checks ran here; the run itself goes to the database and its workers.
			const { runDistributed } = await import("./distributed.ts");
			return await runDistributed(
				{
					flow,
					input: input.value,
					scripts: stage.scripts,
					onEvent: world.onEvent,
					signal: world.signal,
					settings: {
						cwd: io.cwd,
						somebodyThere: false,
						...(runModel ? { model: runModel } : {}),
						...(timeoutMs !== undefined ? { timeoutMs } : {}),
						...(budget.value ? { budget: budget.value } : {}),
						...(script && scriptText ? { script: { file: script.file, text: scriptText } } : {}),
					},
				},
				args,
				io,
			);
		}
		const outcome = await startRun(flow, input.value, {
			runsHome: runsHome(io.cwd, flag(args, "runs-dir")),
			handoff: handoff.policy,
			keyDir: io.agentDir,
			spawn: host.spawn,
			models: models.models,
			cwd: io.cwd,
			signal: world.signal,
			ask,
			git: world.git,
			check: world.check,
			scripts: stage.scripts,
			somebodyThere: ask.somebodyThere,
			...(runModel ? { model: runModel } : {}),
			...(script && scriptText ? { script: { file: script.file, text: scriptText } } : {}),
			...(budget.value ? { budget: budget.value } : {}),
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			...(idleMs !== undefined ? { idleTimeoutMs: idleMs } : {}),
			...(chain.retryBackoffMs !== undefined ? { retryBackoffMs: chain.retryBackoffMs } : {}),
			plugins: chain.plugins,
			onEvent: world.onEvent,
		});
		if ("refused" in outcome) {
			io.stderr(`pi-flows: ${outcome.refused}`);
			return 2;
		}
		return report(outcome, args, io);
	} finally {
		await world.done();
	}
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
		const result = await runFlow(flow, input, {
			spawn: drySpawn(script),
			models: models.ok ? models.models : new Map(),
			cwd: io.cwd,
			signal: world.signal,
			ask: DRY_ASK,
			check: DRY_CHECK,
			git: dryGit(io.cwd),
			retryBackoffMs: 0,
		});
		if (args.flags.has("json")) io.stdout(JSON.stringify(result, null, 2));
		else {
			for (const v of result.visits) {
				const value =
					v.output === undefined
						? ""
						: ` → ${truncate(typeof v.output === "string" ? v.output : JSON.stringify(v.output))}`;
				io.stdout(`${v.ok ? "✓" : "✗"} ${v.path} · ${v.agent ?? v.kind}${v.error ? ` · ${v.error}` : value}`);
			}
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
