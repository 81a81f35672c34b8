/**
 * A throwaway project for benches: its own folder and pi agent dir (nothing of `~/.pi` is read or written),
 * the shipped agents only, and the pipeline's pieces (scripted host, check, models, run) wired the way the
 * CLI wires them.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentDef } from "../../src/agents/index.ts";
import { loadRoster, type Roster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { type FlowResult, resolveModels, type RunOptions } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { openHost, type PiHost, readScript, type Script } from "../../src/pi/index.ts";
import type { AskOptions, SpawnRequest } from "../../src/runtime/subagent.ts";
import { startClock } from "./rounds.ts";

export interface Sandbox {
	root: string;
	cwd: string;
	agentDir: string;
	env: NodeJS.ProcessEnv;
	roster: Roster;
	/** A shipped agent by name. */
	agent(name: string): AgentDef;
	/** A fresh host on the scripted model (a fresh host has fresh visit cursors). */
	host(script: Script): Promise<PiHost>;
	cleanup(): void;
}

export function sandbox(): Sandbox {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-engine-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	const env: NodeJS.ProcessEnv = {
		...process.env,
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
	};
	const roster = loadRoster(cwd, { user: false, project: false }, env);
	return {
		root,
		cwd,
		agentDir,
		env,
		roster,
		agent(name) {
			const a = roster.get(name);
			if (a?.kind !== "agent") throw new Error(`bench: no shipped agent \`${name}\``);
			return a;
		},
		host: (script) => openHost({ cwd, agentDir, script }),
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** A script from YAML text; refuses a bad one loudly. */
export function script(yaml: string): Script {
	const read = readScript(yaml, "bench.script.yaml");
	if (!read.value) throw new Error(`bench: bad script: ${read.faults.map((f) => f.message).join("; ")}`);
	return read.value;
}

/** Every turn answers `ok` in one request, after `latencyMs`. */
export function okScript(latencyMs = 0): Script {
	return script(`${latencyMs ? `latencyMs: ${latencyMs}\n` : ""}turns:\n  "*":\n    - say: ok\n`);
}

/** The task text of one item's turn, as the flow composes it (section, then the read under its heading). */
export const SECTION = "Act on the item.";
export const taskFor = (item: string) => `${SECTION}\n\n## item\n\n${item}\n`;

/** Item names `item-1` … `item-n`. */
export const itemsOf = (n: number) => Array.from({ length: n }, (_, i) => `item-${i + 1}`);

/** A flow with one literal `map` of `items`, each item one turn of `agent` reading `item`. */
export function mapFlow(items: readonly string[], concurrency: number, agent = "scout"): string {
	return [
		"---",
		"name: bench",
		"description: one map, one turn per item",
		"input: string",
		"nodes:",
		"  - id: work",
		`    map: [${items.join(", ")}]`,
		`    concurrency: ${concurrency}`,
		"    do:",
		"      - id: act",
		`        agent: ${agent}`,
		"        reads: [item]",
		"---",
		"",
		"## act",
		"",
		SECTION,
		"",
	].join("\n");
}

/** Where a pipeline run spent its time. */
export interface PipelineRun {
	result: FlowResult;
	checkMs: number;
	resolveMs: number;
	runMs: number;
	totalMs: number;
	/** CPU milliseconds of this process over the whole pipeline. */
	cpuMs: number;
	/** CPU milliseconds of the main thread over the whole pipeline. */
	threadMs: number;
}

/** What a side adds around the run (a trace): run options, and what it does once the run ended, on the clock. */
export type AroundRun = (flow: CheckedFlow) => {
	options?: Partial<RunOptions>;
	done?: (r: FlowResult) => Promise<void>;
};

/** The whole pipeline as the CLI runs it: check the text, resolve every model, run. */
export async function runPipeline(
	box: Sandbox,
	host: PiHost,
	flowText: string,
	around?: AroundRun,
): Promise<PipelineRun> {
	const stop = startClock();
	const t0 = performance.now();
	const checked = checkFlowText(flowText, join(box.cwd, "bench.md"), box.roster);
	const t1 = performance.now();
	if (!checked.value)
		throw new Error(
			`bench: the flow does not check: ${checked.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("; ")}`,
		);
	const flow: CheckedFlow = checked.value;
	const models = resolveModels(flow, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(`bench: ${models.errors.join("; ")}`);
	const t2 = performance.now();
	const extra = around?.(flow);
	const result = await runFlow(flow, "bench", {
		spawn: host.spawn,
		models: models.models,
		cwd: box.cwd,
		...extra?.options,
	});
	await extra?.done?.(result);
	const t3 = performance.now();
	const clock = stop();
	if (!result.ok) throw new Error(`bench: the flow failed: ${result.error}`);
	return {
		result,
		checkMs: t1 - t0,
		resolveMs: t2 - t1,
		runMs: t3 - t2,
		totalMs: t3 - t0,
		cpuMs: clock.cpuMs,
		threadMs: clock.threadMs,
	};
}

/** What the engine asked of pi for one turn: the spawn request and the ask options, as it made them. */
export interface EngineTurn {
	request: SpawnRequest;
	ask: AskOptions;
}

/**
 * Runs a one-item flow and records the engine's spawn request and ask options for its turn, so a bare loop
 * can make exactly the same request (tools, custom tools, prompt, watchdogs) without the evaluator around it.
 */
export async function captureEngineTurn(box: Sandbox, host: PiHost): Promise<EngineTurn> {
	let request: SpawnRequest | undefined;
	let ask: AskOptions | undefined;
	const checked = checkFlowText(mapFlow(["item-1"], 1), join(box.cwd, "bench.md"), box.roster);
	if (!checked.value) throw new Error("bench: the capture flow does not check");
	const models = resolveModels(checked.value, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(`bench: ${models.errors.join("; ")}`);
	const result = await runFlow(checked.value, "bench", {
		models: models.models,
		cwd: box.cwd,
		spawn: async (r) => {
			request ??= r;
			const sub = await host.spawn(r);
			return {
				id: sub.id,
				agent: sub.agent,
				model: sub.model,
				close: () => sub.close(),
				ask: (task, options) => {
					ask ??= options ?? {};
					return sub.ask(task, options);
				},
			};
		},
	});
	if (!result.ok || !request || !ask) throw new Error(`bench: the capture run failed: ${result.error ?? "no turn"}`);
	return { request, ask };
}
