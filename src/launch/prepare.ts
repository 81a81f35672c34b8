/**
 * A checked flow made ready to run, the same way wherever it is launched from (`pi-flows run`, `pi-flows
 * chain`, `/run`, `/step`, the `subagent` tool): a dry run's script read and checked against the flow, the
 * run stage (check scripts, the repository, unattended questions), the host opened, every node's model
 * resolved with its credentials, and the run's settings (budget, a chain's handoffs and backoff, the run
 * model, the script kept for resume) worked out. Nothing spawns here. A refusal is data: the faults that
 * have a `file:line:col`, the lines that have none, and the stage that refused, so each surface only words
 * and shows it (printing on a terminal, notifying in pi) and the two cannot judge one run apart.
 */
import { resolve } from "node:path";
import type { Fault } from "../faults/index.ts";
import {
	budgetInForce,
	type GitPort,
	type LaunchBudget,
	type ModelDoor,
	type NodeModel,
	prepareRun,
	readyModels,
	type RunOptions,
} from "../engine/index.ts";
import { type CheckedFlow, scriptableAddresses } from "../language/index.ts";
import type { TransportPolicy } from "../runtime/index.ts";
import type { Script } from "../script/index.ts";
import { chainRunOptions } from "./run-options.ts";
import { readScriptFile } from "./script.ts";

/** What a launch asks of a checked flow, as the surface read it from its own flags. */
export interface LaunchSettings<H extends ModelDoor> {
	/** The working folder: check scripts, the repository and relative paths are found from it. */
	cwd: string;
	/**
	 * Opens the host the run spawns through, once the run stage allows it; the surface knows how (a
	 * terminal's agent dir and trust, a pi session's runtime and model). Given the script for a dry run.
	 */
	openHost: (script: Script | undefined, transport: Partial<TransportPolicy> | undefined) => Promise<H>;
	/** `--model`: every node's model. */
	model?: string;
	/** `--script`: a dry run on the scripted model with this script (a path from {@link cwd}). */
	script?: string;
	/** The launch budget (`--budget-tokens` and kin); each limit given replaces the flow's of its kind. */
	budget?: LaunchBudget;
	/** `--retries` and `--retry-wait`: the run's transport retries (a flow's `transport:` goes over them). */
	transport?: Partial<TransportPolicy>;
	git: GitPort;
	/** Whether a person can answer questions; a flow that must ask is refused unattended. */
	somebodyThere: boolean;
	/** Places model faults where the person wrote them (a typed chain's columns); default: as found. */
	place?: (faults: readonly Fault[]) => Fault[];
}

/**
 * The run options a launch computes from the flow and its settings, passed to `startRun` as they are:
 * both surfaces start a run from exactly these.
 */
export type LaunchRunOptions = Pick<RunOptions, "plugins" | "budget" | "retryBackoffMs" | "toolSchemas"> & {
	models: ReadonlyMap<string, NodeModel>;
	/** The check scripts the run stage found, by node. */
	scripts: ReadonlyMap<string, string>;
	/** The run's model: `--model`, or `scripted` for a dry run (kept in the snapshot for resume). */
	model?: string;
	/** A dry run's script file and text (kept in the run folder for resume). */
	script?: { file: string; text: string };
};

/** Where a launch was refused: the script, the run stage, or the models. */
export type LaunchStage = "script" | "stage" | "models";

/** A launch that may start, or why not. */
export type Launch<H extends ModelDoor> =
	| { ok: true; host: H; script?: Script; runOptions: LaunchRunOptions }
	| {
			ok: false;
			stage: LaunchStage;
			/** What has a `file:line:col` (placed by {@link LaunchSettings.place}). */
			faults: Fault[];
			/** What has none: an unreadable script, a `--model` pi does not know, a provider without a key. */
			lines: string[];
			/** The script file could not be read at all (`stage: "script"`). */
			unreadable?: string;
	  };

/** Prepares `flow` to run under `settings`; nothing has started when it refuses. */
export async function prepareLaunch<H extends ModelDoor>(
	flow: CheckedFlow,
	settings: LaunchSettings<H>,
): Promise<Launch<H>> {
	const { cwd } = settings;
	const script = settings.script ? readLaunchScript(flow, cwd, settings.script) : undefined;
	if (script && !script.ok) return script;
	const stage = await prepareRun(flow, { cwd, somebodyThere: settings.somebodyThere, git: settings.git });
	if (!stage.ok) return { ok: false, stage: "stage", faults: stage.faults, lines: [] };
	const host = await settings.openHost(script?.value, settings.transport);
	const model = settings.model ?? (script ? "scripted" : undefined);
	const models = await readyModels(flow, host, model);
	if (!models.ok) {
		const faults = models.faults ?? [];
		return {
			ok: false,
			stage: "models",
			faults: settings.place ? settings.place(faults) : faults,
			lines: models.unplaced ?? models.errors,
		};
	}
	const chain = chainRunOptions(flow, cwd);
	// The flow's budget and its chain's both bind; a launch limit replaces its kind; a stated warning stays.
	const budget = budgetInForce(flow, settings.budget ?? {}).budget;
	return {
		ok: true,
		host,
		...(script ? { script: script.value } : {}),
		runOptions: {
			models: models.models,
			scripts: stage.scripts,
			plugins: chain.plugins,
			// The host declares pi's tools: every surface's visits hash the same schemas (src/identity).
			...(hasToolSchemas(host) ? { toolSchemas: (names: readonly string[]) => host.toolSchemas(names) } : {}),
			...(budget ? { budget } : {}),
			...(chain.retryBackoffMs !== undefined ? { retryBackoffMs: chain.retryBackoffMs } : {}),
			...(model ? { model } : {}),
			...(script ? { script: { file: script.value.file, text: script.text } } : {}),
		},
	};
}

/** Whether a host says how pi declares its tools (a pi host does; a test's model door may not). */
export function hasToolSchemas(
	host: object,
): host is { toolSchemas(names: readonly string[]): Readonly<Record<string, unknown>> } {
	return typeof (host as { toolSchemas?: unknown }).toolSchemas === "function";
}

/** A dry run's script for `flow`, read from `path` (relative to `cwd`) and checked against its agent nodes. */
export function readLaunchScript(
	flow: CheckedFlow,
	cwd: string,
	path: string,
):
	| { ok: true; value: Script; text: string }
	| { ok: false; stage: "script"; faults: Fault[]; lines: string[]; unreadable?: string } {
	const file = resolve(cwd, path);
	const read = readScriptFile(file, scriptableAddresses(flow));
	if (read.ok) return read;
	if (read.unreadable) return { ok: false, stage: "script", faults: [], lines: [], unreadable: file };
	return { ok: false, stage: "script", faults: read.faults, lines: [] };
}
