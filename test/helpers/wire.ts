/**
 * Flows over HTTP: a temp project whose pi agent dir has a `models.json` naming the scripted provider
 * server, so every turn goes through pi's real provider code (OpenAI or Anthropic SDK, SSE parsing,
 * usage and cost) to a server that fails as real providers fail.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { type FlowResult, resolveModels, type RunOptions } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { openHost, type PiHost } from "../../src/pi/index.ts";
import {
	type ProviderServer,
	type ProviderServerOptions,
	startProviderServer,
	type Tokens,
} from "../../src/provider/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import type { TransportPolicy } from "../../src/runtime/transport.ts";
import { type TempProject, tempProject } from "./project.ts";

/** Prices per million tokens of the server's model, so cost is checked too. */
export const PRICES: Tokens = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** Retries that do not make a test wait: backoff of milliseconds, stalls noticed in 1.5 s. */
export const FAST: Partial<TransportPolicy> = { baseMs: 5, maxDelayMs: 2000, stallMs: 1500 };

export interface Wire {
	project: TempProject;
	server: ProviderServer;
	close(): Promise<void>;
}

/** A temp project and a server, with `models.json` written. */
export async function wireProject(options: ProviderServerOptions): Promise<Wire> {
	const project = tempProject();
	const server = await startProviderServer(options);
	writeFileSync(join(project.agentDir, "models.json"), JSON.stringify(server.modelsJson({ cost: PRICES })));
	return {
		project,
		server,
		close: async () => {
			await server.close();
			project.cleanup();
		},
	};
}

/** Checks a flow written into the project. */
export function checkIn(project: TempProject, name: string, text: string): CheckedFlow {
	project.write(`.pi/flows/${name}.md`, text);
	const sources = { project: true };
	const roster = loadRoster(project.cwd, sources, project.env);
	const checked = checkFlowText(
		text,
		`${project.cwd}/.pi/flows/${name}.md`,
		roster,
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value)
		throw new Error(checked.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("\n"));
	return checked.value;
}

export interface WireRun {
	result: FlowResult;
	events: FlowEvent[];
	host: PiHost;
}

/** Runs a flow in-process on `model` (`wire/wire-1` or `wire-anthropic/wire-1`). */
export async function runOverWire(
	w: Wire,
	name: string,
	text: string,
	model: string,
	transport: Partial<TransportPolicy> = FAST,
	extra: Partial<RunOptions> = {},
	input: unknown = "the input",
): Promise<WireRun> {
	const flow = checkIn(w.project, name, text);
	const host = await openHost({ cwd: w.project.cwd, agentDir: w.project.agentDir, transport });
	const models = resolveModels(flow, host.resolveModel, model);
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const events: FlowEvent[] = [];
	const result = await runFlow(flow, input as never, {
		spawn: host.spawn,
		models: models.models,
		cwd: w.project.cwd,
		retryBackoffMs: 1,
		onEvent: (e) => events.push(e),
		...extra,
	});
	return { result, events, host };
}

/** The tokens and cost of a usage, to compare with what the server billed. */
export function billedOf(u: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number }) {
	return {
		input: u.input,
		output: u.output,
		cacheRead: u.cacheRead,
		cacheWrite: u.cacheWrite,
		cost: Number(u.cost.toFixed(12)),
	};
}

/** The server's bill in the same shape. */
export function serverBill(server: ProviderServer) {
	const b = server.billed(PRICES);
	return {
		input: b.input,
		output: b.output,
		cacheRead: b.cacheRead,
		cacheWrite: b.cacheWrite,
		cost: Number(b.cost.toFixed(12)),
	};
}

/** usage.json of a run folder. */
export function usageJson(runDir: string) {
	return JSON.parse(readFileSync(join(runDir, "usage.json"), "utf8"));
}

/** A map flow: `items` scouts, each answering with a typed `submit` (`{ item, note }`). */
export function mapFlow(name: string, items: number, concurrency: number, extra = "", onFail = false): string {
	const list = Array.from({ length: items }, (_, i) => `item-${i + 1}`).join(", ");
	return `---
name: ${name}
description: a map over HTTP
input: string
${extra}nodes:
  - id: look
    map: [${list}]
    concurrency: ${concurrency}
${onFail ? "    on-fail: continue\n" : ""}    do:
      - id: find
        agent: scout
        reads: [item]
        output: { item: string, note: string }
---

## find

Look at \`item\` and report on it.
`;
}

/** The item a request is about (`item-7`), read from its task. */
export function itemOf(task: string): string {
	return /item-\d+/.exec(task)?.[0] ?? "?";
}
