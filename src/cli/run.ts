/**
 * `pi-flows run <flow> [input]`: find, check, resolve every model, then run, in that order, so nothing
 * spawns for a flow that would fail to start. Exit 0 (ok), 1 (the run failed: which node, why), 2 (bad
 * usage, or a flow/script/model that does not check; nothing spawned).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadRoster } from "../agents/index.ts";
import { catalogueOptions, scriptableAddresses, checkFlowFile, createBashCheck, createGitPort, findFlow, matches, prepareRun, resolveModels, runFlow, type Type, typeToString, type Value } from "../flow/index.ts";
import { parseDuration } from "../flow/syntax/index.ts";
import { terminalAsk } from "./ask.ts";
import { checkScriptKeys, openHost, readScript, type Script } from "../pi/index.ts";
import { fanOutEvents } from "../runtime/events.ts";
import { formatUsage } from "../runtime/usage.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { formatFaults, progressReporter } from "./output.ts";

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
		io.stderr(`pi-flows: ${found.value.name} does not check (${checked.faults.length} fault${checked.faults.length === 1 ? "" : "s"}); nothing was run`);
		return 2;
	}
	const flow = checked.value;
	let script: Script | undefined;
	const scriptPath = flag(args, "script");
	if (scriptPath) {
		const file = resolve(io.cwd, scriptPath);
		let text: string;
		try {
			text = readFileSync(file, "utf8");
		} catch {
			io.stderr(`pi-flows: cannot read the script ${scriptPath}`);
			return 2;
		}
		const read = readScript(text, file);
		const faults = read.value ? checkScriptKeys(read.value, scriptableAddresses(flow)) : read.faults;
		if (!read.value || faults.length) {
			io.stderr(formatFaults(faults, io.cwd));
			io.stderr("pi-flows: the script does not check; nothing was run");
			return 2;
		}
		script = read.value;
	}
	const input = readInput(rawInput, flow.input.value);
	if (!input.ok) {
		io.stderr(`pi-flows: ${input.error}`);
		return 2;
	}
	const timeoutText = flag(args, "timeout");
	const timeoutMs = timeoutText === undefined ? undefined : parseDuration(timeoutText);
	if (timeoutText !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows: --timeout takes a duration like 90s, 10m or 1h30m, not \`${timeoutText}\``);
		return 2;
	}
	const ask = terminalAsk();
	const git = createGitPort();
	const stage = await prepareRun(flow, { cwd: io.cwd, somebodyThere: ask.somebodyThere, git });
	if (!stage.ok) {
		io.stderr(formatFaults(stage.faults, io.cwd));
		io.stderr("pi-flows: the flow cannot start here; nothing was run");
		return 2;
	}
	const host = await openHost({ cwd: io.cwd, agentDir: io.agentDir, ...(script ? { script } : {}) });
	const runModel = flag(args, "model") ?? (script ? "scripted" : undefined);
	const models = resolveModels(flow, host.resolveModel, runModel);
	if (!models.ok) {
		for (const e of models.errors) io.stderr(`pi-flows: ${e}`);
		io.stderr("pi-flows: nothing was run");
		return 2;
	}
	const controller = new AbortController();
	const onSigint = () => controller.abort();
	process.once("SIGINT", onSigint);
	try {
		const result = await runFlow(flow, input.value, {
			spawn: host.spawn,
			models: models.models,
			cwd: io.cwd,
			signal: controller.signal,
			ask,
			git,
			check: createBashCheck(),
			scripts: stage.scripts,
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			onEvent: fanOutEvents(progressReporter(io.stderr)),
		});
		if (args.flags.has("json")) io.stdout(JSON.stringify(result, null, 2));
		else if (result.ok) io.stdout(typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2));
		io.stderr(`${result.ok ? "✓" : "✗"} ${flow.name.value} · ${result.visits.length} visit(s) · ${formatUsage(result.usage)}`);
		if (!result.ok) {
			io.stderr(`pi-flows: the run failed at ${result.failedAt}: ${result.error}`);
			return 1;
		}
		return 0;
	} finally {
		process.removeListener("SIGINT", onSigint);
	}
}

/** The input as the flow's type wants it: text for `string`, JSON checked against the type otherwise. */
function readInput(text: string, type: Type): { ok: true; value: Value } | { ok: false; error: string } {
	if (type.kind === "string") {
		if (!text.trim()) return { ok: false, error: "say what the flow should work on: pi-flows run <flow> <input>" };
		return { ok: true, value: text };
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { ok: false, error: `this flow takes ${typeToString(type)}; give the input as JSON` };
	}
	const m = matches(value, type);
	if (!m.ok) return { ok: false, error: `the input does not fit ${typeToString(type)}: at ${m.path || "the top"} expected ${m.expected}` };
	return { ok: true, value: value as Value };
}
