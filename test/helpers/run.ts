/**
 * Runs a flow written inline on the scripted model, in a temp project: the whole pipeline (check, resolve
 * models, run) on real pi sessions, with a spawn counter to prove sessions are shared or closed.
 */
import { loadRoster } from "../../src/agents/index.ts";
import { type FlowResult, resolveModels, type RunOptions } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import type { Spawn } from "../../src/runtime/index.ts";
import { countingSpawn, scriptedHost } from "./host.ts";
import type { TempProject } from "./project.ts";

export interface Ran {
	result: FlowResult;
	events: FlowEvent[];
	spawns: number;
	open: number;
	calls: number;
}

/** Writes `flows/<name>.md` into the project and runs it. */
export async function runInline(
	project: TempProject,
	name: string,
	flowText: string,
	script: string,
	input: unknown = "the input",
	options: Partial<RunOptions> = {},
	/** Wraps the scripted host's spawn, as a surface does (`/step`'s gate wraps every turn). */
	wrap: (spawn: Spawn) => Spawn = (spawn) => spawn,
): Promise<Ran> {
	project.write(`.pi/flows/${name}.md`, flowText);
	const sources = { project: true };
	const roster = loadRoster(project.cwd, sources, project.env);
	const checked = checkFlowText(
		flowText,
		`${project.cwd}/.pi/flows/${name}.md`,
		roster,
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value)
		throw new Error(
			`the test flow does not check:\n${checked.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("\n")}`,
		);
	const host = await scriptedHost(project, script);
	const models = resolveModels(checked.value, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const { spawn, spawns } = countingSpawn(host);
	const events: FlowEvent[] = [];
	const result = await runFlow(checked.value, input as never, {
		spawn: wrap(spawn),
		models: models.models,
		cwd: project.cwd,
		retryBackoffMs: 1,
		onEvent: (e) => events.push(e),
		...options,
	});
	return { result, events, spawns: spawns(), open: host.open(), calls: host.scripted?.calls() ?? 0 };
}

/** A flow file from frontmatter nodes (YAML, indented two spaces) and sections. */
export function flowOf(name: string, nodes: string, sections: Record<string, string>, extra = ""): string {
	const body = Object.entries(sections)
		.map(([id, text]) => `## ${id}\n\n${text}\n`)
		.join("\n");
	return `---\nname: ${name}\ndescription: test flow\ninput: string\n${extra}nodes:\n${nodes}---\n\n${body}`;
}
