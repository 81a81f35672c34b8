/**
 * Durable runs of inline flows on the scripted model, for the reliability tests: each in its own temp
 * project, started and resumed through the same doors `pi-flows run` and `pi-flows resume` use, with a
 * failure of `startRun` kept as a value so a test can say what the caller would have seen.
 */
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { type RunOutcome, runsHome, type StartOptions, startRun } from "../../src/runs/index.ts";
import { resumeScripted, scriptedHost } from "./host.ts";
import { alive } from "../engine/ports/temp-repo.ts";
import { type TempProject, tempProject } from "./project.ts";

const made: TempProject[] = [];

/** A temp project removed by {@link cleanupProjects}. */
export function project(): TempProject {
	const p = tempProject();
	made.push(p);
	return p;
}

export function cleanupProjects(): void {
	for (const p of made.splice(0)) p.cleanup();
}

/** Writes `.pi/flows/<name>.md` and checks it in the project scope; a test flow that does not check is the test's bug. */
export function checked(p: TempProject, name: string, text: string): CheckedFlow {
	const file = p.write(`.pi/flows/${name}.md`, text);
	const sources = { project: true };
	const c = checkFlowText(text, file, loadRoster(p.cwd, sources, p.env), catalogueOptions(p.cwd, sources, p.env));
	if (!c.value) throw new Error(c.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("\n"));
	return c.value;
}

/** Starts a run; what it returned or threw, the host (for open sessions and model calls), and its time. */
export async function start(
	p: TempProject,
	flow: CheckedFlow,
	scriptYaml: string,
	extra: Partial<StartOptions> = {},
	input = "go",
) {
	const host = await scriptedHost(p, scriptYaml);
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const options: StartOptions = {
		runsHome: runsHome(p.cwd),
		spawn: host.spawn,
		models: models.models,
		cwd: p.cwd,
		scripts: new Map(),
		somebodyThere: true,
		retryBackoffMs: 0,
		...extra,
	};
	const started = performance.now();
	let out: RunOutcome | undefined;
	let thrown: Error | undefined;
	try {
		const r = await startRun(flow, input, options);
		if ("refused" in r) throw new Error(r.refused);
		out = r;
	} catch (error) {
		thrown = error as Error;
	}
	return { out, thrown, host, ms: performance.now() - started };
}

/** Resumes a run with a new script; a refusal fails the test with its reason. */
export async function resume(p: TempProject, runDir: string, scriptYaml: string) {
	const { out, host } = await resumeScripted(p, runDir, scriptYaml);
	if ("refused" in out) throw new Error(`the resume was refused: ${out.refused}`);
	return { out, host };
}

/** Runs `fn` over `items`, `size` at a time: the cases are independent, the machine is not infinite. */
export async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const out: R[] = [];
	for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
	return out;
}

/** The pids still alive after waiting up to `withinMs` for them to go. */
export async function stillAlive(pids: readonly number[], withinMs: number): Promise<number[]> {
	const until = performance.now() + withinMs;
	let left = pids.filter(alive);
	while (left.length && performance.now() < until) {
		await new Promise((done) => setTimeout(done, 25));
		left = left.filter(alive);
	}
	return left;
}
