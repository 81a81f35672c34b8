/**
 * Stage 4, run: walks a checked flow. Each agent node is one turn of a fresh subagent, opened for the
 * visit and closed in a `finally` whatever happens (whoever opens, closes). A failed node stops the flow
 * with `ok: false` naming the node; the evaluator never throws for a failed turn.
 *
 *   input:  CheckedFlow explore, input "what is this?", spawn
 *   output: { ok: true, output: "<answer>", nodes: [scout ✓, answer ✓], usage }
 */
import type { ErrorKind } from "../../runtime/result.ts";
import type { EventSink } from "../../runtime/events.ts";
import type { Spawn, Subagent } from "../../runtime/subagent.ts";
import { addUsage, emptyUsage, type Usage } from "../../runtime/usage.ts";
import type { CheckedFlow } from "../check/index.ts";
import type { NodeModel } from "./models.ts";
import { composeTask, type Ended } from "./task.ts";

/** Options of one run. */
export interface RunOptions {
	spawn: Spawn;
	/** Each node's model, resolved before the run (see `resolveModels`). */
	models: ReadonlyMap<string, NodeModel>;
	cwd: string;
	signal?: AbortSignal;
	/** Per-turn deadline; no default. */
	timeoutMs?: number;
	onEvent?: EventSink;
}

/** How one node ended. */
export interface NodeOutcome {
	id: string;
	path: string;
	agent: string;
	model: string;
	ok: boolean;
	output: string;
	error?: string;
	errorKind?: ErrorKind;
	usage: Usage;
}

/** How a run ended. */
export interface FlowResult {
	flow: string;
	ok: boolean;
	/** The last node's output. */
	output: string;
	/** `node: kind: message` for a failed run. */
	error?: string;
	/** The path of the visit the failure started at. */
	failedAt?: string;
	nodes: NodeOutcome[];
	/** Summed over every turn; `ms` is the run's wall time. */
	usage: Usage;
}

/** Runs a checked flow on `input`. */
export async function runFlow(flow: CheckedFlow, input: string, options: RunOptions): Promise<FlowResult> {
	const started = performance.now();
	const emit: EventSink = options.onEvent ?? (() => {});
	const ended = new Map<string, Ended>();
	const nodes: NodeOutcome[] = [];
	emit({ type: "run_start", flow: flow.name.value, input, at: Date.now() });
	let failure: { error: string; at: string } | undefined;
	for (const node of flow.nodes) {
		const id = node.id.value;
		if (node.kind !== "agent") {
			failure = { error: `${node.path}: unavailable: \`${node.kind}\` nodes do not run in this version`, at: node.path };
			break;
		}
		const agent = flow.agents.get(id);
		const model = options.models.get(id);
		if (!agent || !model) throw new Error(`pi-flows: node ${id} was not resolved before the run`);
		emit({ type: "node_start", path: node.path, node: id, kind: "agent", agent: agent.name, model: model.ref });
		const task = composeTask(flow.prompts.get(id) ?? "", node.reads, input, ended);
		let sub: Subagent | undefined;
		let outcome: NodeOutcome;
		try {
			sub = await options.spawn({
				agent,
				model: model.spec ?? model.ref,
				cwd: options.cwd,
				onToolCall: (tool, args) => emit({ type: "tool_call", path: node.path, agent: agent.name, subagent: sub?.id ?? "", tool, args }),
			});
			emit({ type: "turn_start", path: node.path, agent: agent.name, model: sub.model, subagent: sub.id });
			const result = await sub.ask(task, {
				label: node.path,
				...(options.signal ? { signal: options.signal } : {}),
				...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
			});
			emit({ type: "turn_end", path: node.path, agent: agent.name, model: sub.model, subagent: sub.id, ok: result.ok, usage: result.usage });
			outcome = {
				id,
				path: node.path,
				agent: agent.name,
				model: result.model,
				ok: result.ok,
				output: result.output,
				usage: result.usage,
				...(result.error ? { error: result.error } : {}),
				...(result.errorKind ? { errorKind: result.errorKind } : {}),
			};
		} catch (error) {
			// Only spawning throws (pi refused to create the session); that is this node's failure.
			outcome = { id, path: node.path, agent: agent.name, model: model.ref, ok: false, output: "", error: String((error as Error).message ?? error), errorKind: "provider", usage: emptyUsage() };
		} finally {
			await sub?.close();
		}
		nodes.push(outcome);
		ended.set(id, { ok: outcome.ok, output: outcome.output, ...(outcome.ok ? {} : { error: { kind: outcome.errorKind ?? "provider", message: outcome.error ?? "" } }) });
		emit({
			type: "node_end",
			path: node.path,
			node: id,
			kind: "agent",
			agent: agent.name,
			model: outcome.model,
			ok: outcome.ok,
			usage: outcome.usage,
			...(outcome.error ? { error: outcome.error } : {}),
		});
		if (!outcome.ok) {
			failure = { error: `${node.path}: ${outcome.errorKind ?? "provider"}: ${outcome.error ?? "failed"}`, at: node.path };
			break;
		}
	}
	const usage = { ...addUsage(...nodes.map((n) => n.usage)), ms: performance.now() - started };
	const result: FlowResult = {
		flow: flow.name.value,
		ok: !failure,
		output: failure ? "" : (nodes[nodes.length - 1]?.output ?? ""),
		nodes,
		usage,
		...(failure ? { error: failure.error, failedAt: failure.at } : {}),
	};
	emit({ type: "run_end", flow: flow.name.value, ok: result.ok, usage, ...(result.error ? { error: result.error } : {}) });
	return result;
}
