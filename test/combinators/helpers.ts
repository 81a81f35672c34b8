/**
 * Shared by the combinator tests: agents as data, a real pi host on the scripted model in a temp project,
 * and a fake `spawn` for the properties only exact timing can prove (order, concurrency, cancellation).
 */
import type { AgentDef } from "../../src/agents/index.ts";
import type { WorkflowOptions } from "../../src/combinators/index.ts";
import type { PiHost } from "../../src/pi/index.ts";
import type { Result } from "../../src/runtime/result.ts";
import type { AskOptions, Spawn, SpawnRequest, Subagent } from "../../src/runtime/subagent.ts";
import { emptyUsage } from "../../src/runtime/usage.ts";
import type { WorkflowEvent } from "../../src/runtime/workflow-events.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

/** An agent that only answers (no tools), unless given some. */
export function agent(name: string, extra: Partial<AgentDef> = {}): AgentDef {
	return {
		kind: "agent",
		name,
		description: `${name} for tests`,
		tools: [],
		prompt: `You are ${name}.`,
		file: `${name}.md`,
		source: "shipped",
		...extra,
	};
}

/** A real host on the scripted model, and workflow options that run every subagent on it. */
export interface Real {
	project: TempProject;
	host: PiHost;
	events: WorkflowEvent[];
	options: WorkflowOptions;
}

const opened: TempProject[] = [];

/** Opens a temp project and a host playing `script`; `cleanupReal` in afterEach removes them. */
export async function real(script: string): Promise<Real> {
	const project = tempProject();
	opened.push(project);
	const host = await scriptedHost(project, script);
	const events: WorkflowEvent[] = [];
	return {
		project,
		host,
		events,
		options: { cwd: project.cwd, spawn: host.spawn, model: "scripted", onEvent: (e) => events.push(e) },
	};
}

export function cleanupReal(): void {
	for (const p of opened.splice(0)) p.cleanup();
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function wait(ms: number, signal?: AbortSignal): Promise<boolean> {
	return new Promise((resolve) => {
		if (signal?.aborted) return resolve(false);
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", stop);
			resolve(true);
		}, ms);
		function stop() {
			clearTimeout(timer);
			resolve(false);
		}
		signal?.addEventListener("abort", stop, { once: true });
	});
}

/** What a fake turn is told. */
export interface FakeCall {
	task: string;
	agent: string;
	subagent: string;
	options: AskOptions;
}

/** A fake subagent, with what happened to it. */
export interface FakeSub extends Subagent {
	closed: boolean;
	tasks: string[];
}

/**
 * A `spawn` whose turns answer through `answer`: return a partial result, or `{ delay, output }` to wait
 * (cut short as `aborted` by the turn's signal, as the real one is).
 */
export function fakeSpawn(
	answer: (call: FakeCall) => Partial<Result> & { delay?: number } = () => ({}),
	closeThrows: (id: string) => boolean = () => false,
) {
	const subs: FakeSub[] = [];
	const requests: SpawnRequest[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const spawn: Spawn = async (request) => {
		requests.push(request);
		const id = `${request.agent.name}#${subs.length + 1}`;
		const model = request.model ?? request.agent.model ?? "fake/model";
		const sub: FakeSub = {
			id,
			agent: request.agent.name,
			model,
			closed: false,
			tasks: [],
			async ask(task, options = {}) {
				sub.tasks.push(task);
				const base: Result = { agent: sub.agent, output: "", messages: [], usage: emptyUsage(), model, ok: true };
				const aborted = (): Result => ({
					...base,
					ok: false,
					error: "aborted",
					errorKind: "aborted",
					usage: { ...emptyUsage(), input: 5, totalTokens: 5 },
				});
				if (options.signal?.aborted) return aborted();
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				const started = performance.now();
				try {
					const { delay, ...partial } = answer({ task, agent: sub.agent, subagent: id, options });
					if (delay !== undefined && !(await wait(delay, options.signal))) return aborted();
					return {
						...base,
						output: `${id}: ${task}`,
						...partial,
						usage: {
							...emptyUsage(),
							input: 10,
							output: 2,
							totalTokens: 12,
							ms: performance.now() - started,
							...partial.usage,
						},
					};
				} finally {
					inFlight--;
				}
			},
			async close() {
				sub.closed = true;
				if (closeThrows(id)) throw new Error(`closing ${id} failed`);
			},
		};
		subs.push(sub);
		return sub;
	};
	return { spawn, subs, requests, open: () => subs.filter((s) => !s.closed).length, maxInFlight: () => maxInFlight };
}

/** The options of a workflow on a fake spawn. */
export function fakeOptions(spawn: Spawn, extra: Partial<WorkflowOptions> = {}): WorkflowOptions {
	return { cwd: "/tmp", spawn, ...extra };
}
