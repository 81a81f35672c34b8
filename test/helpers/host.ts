/** Opens a pi host on the scripted model with a script written inline, and resumes runs on one. */
import { resolveModels } from "../../src/engine/index.ts";
import { openHost, type PiHost, readScript } from "../../src/pi/index.ts";
import type { Result } from "../../src/runtime/index.ts";
import type { Spawn } from "../../src/runtime/subagent.ts";
import { type Refusal, type ResumeOptions, resumeRun, type RunOutcome } from "../../src/runs/index.ts";
import type { TempProject } from "./project.ts";

export async function scriptedHost(project: TempProject, scriptYaml: string): Promise<PiHost> {
	const read = readScript(scriptYaml, "inline-script.yaml");
	if (!read.value) throw new Error(`bad test script: ${JSON.stringify(read.faults)}`);
	return openHost({ cwd: project.cwd, agentDir: project.agentDir, script: read.value });
}

/**
 * Resumes a run on a fresh scripted host, as a test's second life: every model is the scripted one,
 * somebody is there, a turn in doubt stops, retries do not wait. `extra` overrides any of it.
 */
export async function resumeScripted(
	project: TempProject,
	runDir: string,
	scriptYaml: string,
	extra: Partial<ResumeOptions> = {},
): Promise<{ host: PiHost; out: RunOutcome | Refusal }> {
	const host = await scriptedHost(project, scriptYaml);
	const out = await resumeRun({
		runDir,
		cwd: project.cwd,
		spawn: host.spawn,
		toolSchemas: host.toolSchemas,
		models: (flow) => {
			const m = resolveModels(flow, host.resolveModel, "scripted");
			return m.ok ? m.models : m.errors;
		},
		somebodyThere: true,
		inDoubt: "stop",
		retryBackoffMs: 0,
		...extra,
	});
	return { host, out };
}

/** A host's spawn that counts its calls, to prove sessions are shared or reopened. */
export function countingSpawn(host: PiHost): { spawn: Spawn; spawns: () => number } {
	let n = 0;
	return {
		spawn: (request) => {
			n++;
			return host.spawn(request);
		},
		spawns: () => n,
	};
}

/** A project agent made in the test, `probe` unless named, granted `tools`. */
export function probeAgent(tools: string[], name = "probe") {
	return {
		kind: "agent" as const,
		name,
		description: "d",
		tools,
		prompt: "You probe.",
		file: `${name}.md`,
		source: "project" as const,
	};
}

/**
 * A spawn whose turns run one at a time, in the order asked, as `/step` runs them; `after` may act on each
 * turn's result once it ended (hold it for a person, as `/step` does).
 */
export function oneAtATime(spawn: Spawn, after: (r: Result) => Promise<Result> = async (r) => r): Spawn {
	let queue: Promise<unknown> = Promise.resolve();
	return async (request) => {
		const sub = await spawn(request);
		return {
			...sub,
			ask: (task, options) => {
				const turn = queue.then(async () => after(await sub.ask(task, options)));
				queue = turn.catch(() => {});
				return turn;
			},
		};
	};
}
