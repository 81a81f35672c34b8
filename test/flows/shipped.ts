/**
 * Runs a shipped flow (the package's `flows/`) end to end on the scripted model, the way `pi-flows run`
 * does: checked from the package's folder with its callees found in the same catalogue, the script's keys
 * checked against the flow, the run stage (scripts, repository, unattended asks), then the run with the
 * real check and git ports.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadRoster } from "../../src/agents/index.ts";
import {
	type AskPort,
	createBashCheck,
	createGitPort,
	NOBODY,
	prepareRun,
	resolveModels,
	type RunOptions,
} from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { type CheckedFlow, scriptableAddresses } from "../../src/language/index.ts";
import { catalogueOptions, checkFlowFile } from "../../src/load/index.ts";
import { checkScriptKeys, openHost, readScript } from "../../src/pi/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { countingSpawn } from "../helpers/host.ts";
import type { TempProject } from "../helpers/project.ts";
import type { Ran } from "../helpers/run.ts";

/** The package's shipped flows. */
export const FLOWS = fileURLToPath(new URL("../../flows/", import.meta.url));

/** A fixture script of `test/fixtures/shipped/`. */
export function fixture(name: string): string {
	return readFileSync(fileURLToPath(new URL(`../fixtures/shipped/${name}`, import.meta.url)), "utf8");
}

/** The shipped flow `name`, checked from the package's folder. */
export function shippedFlow(project: TempProject, name: string): CheckedFlow {
	const roster = loadRoster(project.cwd, {}, project.env);
	const checked = checkFlowFile(`${FLOWS}${name}.md`, roster, catalogueOptions(project.cwd, {}, project.env));
	if (!checked.value)
		throw new Error(
			`flows/${name}.md does not check:\n${checked.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("\n")}`,
		);
	return checked.value;
}

export interface ShippedRun extends Ran {
	flow: CheckedFlow;
}

/** Runs the shipped flow `name` on `input` with `script` (YAML text). Nobody answers unless `ask` is given. */
export async function runShipped(
	project: TempProject,
	name: string,
	script: string,
	input: string,
	options: Partial<RunOptions> & { ask?: AskPort; checkKeys?: boolean } = {},
): Promise<ShippedRun> {
	const { checkKeys = true, ...rest } = options;
	const flow = shippedFlow(project, name);
	const read = readScript(script, `${name}.script.yaml`);
	if (!read.value) throw new Error(`bad script: ${JSON.stringify(read.faults)}`);
	const keys = checkKeys ? checkScriptKeys(read.value, scriptableAddresses(flow)) : [];
	if (keys.length) throw new Error(`the script names unknown nodes: ${keys.map((f) => f.message).join("; ")}`);
	const ask = options.ask ?? NOBODY;
	const git = options.git ?? createGitPort();
	const stage = await prepareRun(flow, { cwd: project.cwd, somebodyThere: ask.somebodyThere, git });
	if (!stage.ok)
		throw new Error(
			`the run stage refused ${name}:\n${stage.faults.map((f) => `${f.code} ${f.path}: ${f.message}`).join("\n")}`,
		);
	const host = await openHost({ cwd: project.cwd, agentDir: project.agentDir, script: read.value });
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const { spawn, spawns } = countingSpawn(host);
	const events: FlowEvent[] = [];
	const result = await runFlow(flow, input, {
		spawn,
		models: models.models,
		cwd: project.cwd,
		retryBackoffMs: 1,
		ask,
		git,
		check: createBashCheck(),
		scripts: stage.scripts,
		onEvent: (e) => events.push(e),
		...rest,
	});
	return { flow, result, events, spawns: spawns(), open: host.open(), calls: host.scripted?.calls() ?? 0 };
}

/** The agent each turn of `path` ran as, from the events. */
export function agentsAt(ran: Ran, path: string): string[] {
	return ran.events
		.filter((e) => e.type === "turn_start" && e.path === path)
		.map((e) => (e as { agent: string }).agent);
}
