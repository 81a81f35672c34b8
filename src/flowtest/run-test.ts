/**
 * Runs one flow test on the scripted model (real pi sessions; tools really execute) with the test's
 * answers and check results, git never run, and compares what came out with what was expected.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { loadRoster, type Sources } from "../agents/index.ts";
import { faultText } from "../faults/index.ts";
import {
	type AskAnswer,
	type CheckPort,
	dryGit,
	instantClock,
	type FlowResult,
	NO_RECORD,
	resolveModels,
	scriptedAsk,
} from "../engine/index.ts";
import { runFlow } from "../kinds/run.ts";
import type { CheckedFlow } from "../language/index.ts";
import { findFlow } from "../load/index.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import { checkScriptKeys, openHost, readScript, type Script, stepsFor } from "../pi/index.ts";
import { scriptableAddresses } from "../language/check/index.ts";
import type { Expectations, FlowTest } from "./spec.ts";
import {
	type Cassette,
	cassettePlayer,
	differenceLine,
	type Player,
	type ReplayMode,
	readCassette,
	replayModels,
	withoutNetwork,
} from "../cassette/index.ts";

/** How one test went. */
export interface TestOutcome {
	file: string;
	flow: string;
	passed: boolean;
	failures: string[];
	/** A cassette's replay: every difference from the recording (in `warn`, the test may pass with some). */
	differences?: string[];
	result?: FlowResult;
}

/** Options of {@link runFlowTest}. */
export interface FlowTestOptions {
	cwd: string;
	agentDir: string;
	env: NodeJS.ProcessEnv;
	sources: Sources;
	/** How a cassette is replayed (default `strict`). */
	replay?: ReplayMode;
}

/** Runs a test. */
export async function runFlowTest(test: FlowTest, options: FlowTestOptions): Promise<TestOutcome> {
	const name = test.flow ?? basename(test.file).replace(/\.test\.ya?ml$/, "");
	const beside = join(dirname(test.file), `${name}.md`);
	const fail = (failures: string[]): TestOutcome => ({ file: test.file, flow: name, passed: false, failures });
	const found = existsSync(beside)
		? { ok: true as const, value: { file: beside } }
		: findFlow(name, options.cwd, options.sources, options.env);
	if (!found.ok) return fail([found.error]);
	const roster = loadRoster(options.cwd, options.sources, options.env);
	const checked = checkFlowFile(
		found.value.file,
		roster,
		catalogueOptions(
			dirname(found.value.file) === dirname(test.file) ? options.cwd : options.cwd,
			options.sources,
			options.env,
		),
	);
	if (!checked.value)
		return fail(checked.faults.map((f) => `${f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`));
	let played: { script: Script; player?: Player; cassette?: Cassette; mode?: ReplayMode };
	if (test.cassette !== undefined) {
		const file = resolve(dirname(test.file), test.cassette);
		let text: string;
		try {
			text = readFileSync(file, "utf8");
		} catch (error) {
			return fail([`the cassette ${test.cassette} cannot be read: ${(error as Error).message}`]);
		}
		const read = readCassette(text, test.cassette);
		if (!read.value) return fail(read.problems);
		const mode = options.replay ?? "strict";
		// The project the test stands in: the files the recorded visits read are compared with its own.
		const root = options.cwd;
		const player = cassettePlayer(read.value, mode, test.cassette, (path) => {
			const at = resolve(root, path);
			return at.startsWith(`${root}/`) && existsSync(at) && statSync(at).isFile()
				? readFileSync(at, "utf8")
				: undefined;
		});
		played = { script: player.script, player, cassette: read.value, mode };
	} else {
		const script = readScript(test.script, `${test.file}#script`);
		if (!script.value)
			return fail(script.faults.map((f) => `script ${f.line}:${f.column}: ${f.code}: ${faultText(f)}`));
		const keys = checkScriptKeys(script.value, scriptableAddresses(checked.value));
		if (keys.length) return fail(keys.map((f) => `script: ${faultText(f)}`));
		played = { script: script.value };
	}
	// Tools really execute, so a test runs in a scratch folder of its own (seeded with `files:`), never in
	// the author's tree: a scripted `write` must not change the project being tested.
	const scratch = mkdtempSync(join(tmpdir(), "pi-flows-test-"));
	try {
		for (const [path, text] of Object.entries(test.files)) {
			const file = resolve(scratch, path);
			if (!file.startsWith(`${scratch}/`)) return fail([`\`files\` names ${path}, which leaves the test's folder`]);
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, text);
		}
		const run = () => runIn(scratch, test, checked.value as CheckedFlow, played, name, options);
		return played.mode === "lockdown" ? await withoutNetwork(run) : await run();
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

async function runIn(
	cwd: string,
	test: FlowTest,
	flow: CheckedFlow,
	played: { script: Script; player?: Player; cassette?: Cassette; mode?: ReplayMode },
	name: string,
	options: { agentDir: string },
): Promise<TestOutcome> {
	const fail = (failures: string[]): TestOutcome => ({ file: test.file, flow: name, passed: false, failures });
	const { script, player, cassette } = played;
	const host = await openHost({ cwd, agentDir: options.agentDir, script });
	// A replay asks every node for the model the flow names (so the identity's `model` part is compared) and
	// answers it on the scripted model: no provider is reached, nor needs to be configured.
	const models = cassette ? replayModels(flow, cassette) : resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) return fail(models.errors);
	const answers: Record<string, AskAnswer | string | boolean> = {};
	for (const [k, v] of Object.entries(test.answers))
		answers[k] = v === "enough" ? { kind: "enough" } : v === "nobody" ? { kind: "nobody" } : (v as string | boolean);
	const check: CheckPort = {
		run: async (request) => {
			if (player) {
				const r = player.checked(request, test.checks);
				if ("refused" in r) return { ok: false, kind: "unavailable", message: r.refused, report: "" };
				return { ok: true, passed: r.passed, report: r.report, exitCode: r.passed ? 0 : 1, ms: 0 };
			}
			const r = (request.visit !== undefined ? test.checks[request.visit] : undefined) ??
				test.checks[request.script] ??
				Object.values(test.checks)[0] ?? { passed: true };
			return { ok: true, passed: r.passed, report: r.report ?? "", exitCode: r.passed ? 0 : 1, ms: 0 };
		},
	};
	const result = await runFlow(flow, test.input as never, {
		spawn: player ? (request) => host.spawn({ ...request, model: "scripted" }) : host.spawn,
		...(player ? { recorder: { ...NO_RECORD, identity: player.identity } } : {}),
		toolSchemas: host.toolSchemas,
		models: models.models,
		cwd,
		ask: scriptedAsk(answers),
		check,
		git: dryGit(cwd),
		// A test of a flow that waits does not sleep: its clock moves on by what each `wait` names.
		clock: instantClock(),
		retryBackoffMs: 0,
	});
	const failures = compare(test.expect, result);
	if (player) {
		const differences = player.differences.map(differenceLine);
		// A strict replay's difference failed a request; it is the reason, said before what followed from it.
		if (played.mode !== "warn") failures.unshift(...differences.map((d) => `differs from the recording: ${d}`));
		return { file: test.file, flow: name, passed: failures.length === 0, failures, differences, result };
	}
	const step = failures.length && !result.ok ? scriptStepAt(script, result) : undefined;
	if (step) failures.push(step);
	return { file: test.file, flow: name, passed: failures.length === 0, failures, result };
}

/**
 * Which step of which script entry the failure came from, and why, so an author edits the right line:
 * `at script entry \`plan\`, step 1 (\`call: submit\`): the tool refused its arguments (see above)`.
 */
export function scriptStepAt(script: Script, result: FlowResult): string | undefined {
	if (result.ok || !result.failedAt) return undefined;
	const found = stepsFor(script, result.failedAt);
	if (!found) return undefined;
	const error = result.visits.findLast((v) => v.path === result.failedAt)?.error ?? "";
	const where = `at script entry \`${found.key}\`${found.key === result.failedAt ? "" : ` (visit ${result.failedAt})`}`;
	const tool = /the `([\w-]+)` tool refused/.exec(error)?.[1];
	const called = tool ? found.steps.findLastIndex((s) => s.calls.some((c) => c.name === tool)) : -1;
	if (tool && called >= 0)
		return `${where}, step ${called + 1} (\`call: ${tool}\`): the tool refused its \`args\`; fix them as the words above say`;
	const failed = found.steps.findIndex((s) => s.fail !== undefined && error.includes(s.fail));
	if (failed >= 0) return `${where}, step ${failed + 1} (\`fail\`): the script made this turn fail`;
	if (/are used up/.test(error))
		return `${where}: its ${found.steps.length} step(s) ran out before the turn ended; a turn ends with a \`say\` and no call, or an accepted \`submit\`/\`verdict\``;
	return undefined;
}

/** Every way `result` differs from `expect`, one sentence each. */
export function compare(expect: Expectations, result: FlowResult): string[] {
	const out: string[] = [];
	const ok = expect.ok ?? !expect.error;
	const why =
		result.failedAt && result.error?.startsWith(`${result.failedAt}: `)
			? result.error.slice(result.failedAt.length + 2)
			: result.error;
	if (result.ok !== ok)
		out.push(
			`expected the run to ${ok ? "succeed" : "fail"}, but it ${result.ok ? "succeeded" : `failed at ${result.failedAt}: ${why}`}`,
		);
	if (expect.error !== undefined && result.errorKind !== expect.error)
		out.push(`expected the error kind \`${expect.error}\`, got \`${result.errorKind ?? "none"}\``);
	if (expect.failedAt !== undefined && result.failedAt !== expect.failedAt)
		out.push(`expected the failure at \`${expect.failedAt}\`, got \`${result.failedAt ?? "none"}\``);
	const paths = result.visits.map((v) => v.path);
	if (expect.visits && !isDeepStrictEqual(paths, expect.visits))
		out.push(`expected the visits\n    ${expect.visits.join(", ")}\n  got\n    ${paths.join(", ")}`);
	if (expect.visited && !isDeepStrictEqual([...paths].sort(), [...expect.visited].sort()))
		out.push(
			`expected the visited set\n    ${[...expect.visited].sort().join(", ")}\n  got\n    ${[...paths].sort().join(", ")}`,
		);
	for (const [key, want] of Object.entries(expect.outputs ?? {})) {
		const visits = result.visits.filter((v) => v.path === key || v.node === key);
		if (visits.length === 0) out.push(`\`${key}\` has no visit`);
		else if (visits.length > 1 && !visits.some((v) => v.path === key))
			out.push(
				`\`${key}\` has ${visits.length} visits; name one by its path (${visits.map((v) => v.path).join(", ")})`,
			);
		else {
			const v = visits.find((x) => x.path === key) ?? visits[0];
			if (!fits(v.output, want))
				out.push(`\`${key}\` was ${JSON.stringify(v.output)}, expected ${JSON.stringify(want)}`);
		}
	}
	if ("output" in expect && !fits(result.output, expect.output))
		out.push(`the final output was ${JSON.stringify(result.output)}, expected ${JSON.stringify(expect.output)}`);
	return out;
}

/**
 * Whether a value is what a test expects: exactly, or `{ contains: text }` (the text holds it), or
 * `{ partial: value }` (every field given matches, fields left out are not compared, nested objects alike;
 * lists and plain values exactly).
 */
function fits(actual: unknown, want: unknown): boolean {
	if (isOnly(want, "partial")) return partialFits(actual, (want as { partial: unknown }).partial);
	if (
		want &&
		typeof want === "object" &&
		!Array.isArray(want) &&
		Object.keys(want).length === 1 &&
		"contains" in want
	) {
		return typeof actual === "string" && actual.includes(String((want as { contains: unknown }).contains));
	}
	return isDeepStrictEqual(actual, want);
}

function isOnly(want: unknown, key: string): boolean {
	return !!want && typeof want === "object" && !Array.isArray(want) && Object.keys(want).length === 1 && key in want;
}

function partialFits(actual: unknown, want: unknown): boolean {
	if (!want || typeof want !== "object" || Array.isArray(want)) return isDeepStrictEqual(actual, want);
	if (!actual || typeof actual !== "object" || Array.isArray(actual)) return false;
	const has = actual as Record<string, unknown>;
	return Object.entries(want).every(([k, v]) => k in has && partialFits(has[k], v));
}
