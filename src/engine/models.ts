/**
 * Every agent's model is resolved before the first turn, nearest wins: the run's option, then the node's
 * `model:`, then the flow's (then each calling flow's, outward), then the agent's frontmatter, then pi's
 * settings. An unknown model is an error naming the node, and nothing spawns. Keys are node paths through
 * calls (`spec/ask_next`), with `:agent` for each agent an `agent-from` node may pick.
 */
import { readFileSync } from "node:fs";
import type { AgentDef } from "../agents/index.ts";
import { type Fault, fault } from "../faults/index.ts";
import { lineTable, type Range } from "../text/index.ts";
import { allNodes } from "../language/ast.ts";
import type { CheckedFlow } from "../language/check/index.ts";

/**
 * Resolves a reference to `provider/id` or says why not (the pi door's `resolveModel`), with the models
 * nearest to a name it cannot find.
 */
export type ResolveModel = (
	ref: string | undefined,
) => { ok: true; value: { ref: string; thinking?: string } } | { ok: false; error: string; nearest?: string[] };

/** Where a node's model came from, for plans and progress lines. */
export type ModelSource = "run" | "node" | "flow" | "agent" | "settings";

/** A node's model as resolved. */
export interface NodeModel {
	ref: string;
	/** The reference as written (passed to spawn so a thinking suffix survives). */
	spec?: string;
	source: ModelSource;
}

/** The key of a node's model: its path through calls, and the agent for `agent-from` nodes. */
export function modelKey(prefix: string, nodeId: string, agent?: string): string {
	return `${prefix}${nodeId}${agent ? `:${agent}` : ""}`;
}

/** Resolves every agent's model (callees included), or lists what cannot be resolved. */
export function resolveModels(
	flow: CheckedFlow,
	resolve: ResolveModel,
	runModel?: string,
): { ok: true; models: Map<string, NodeModel> } | { ok: false; errors: string[]; faults: Fault[]; unplaced: string[] } {
	const models = new Map<string, NodeModel>();
	const errors: string[] = [];
	const faults: Fault[] = [];
	const unplaced: string[] = [];
	const walk = (f: CheckedFlow, prefix: string, flowModels: readonly string[]) => {
		const here = f.model ? [f.model.value, ...flowModels] : flowModels;
		for (const node of allNodes(f.nodes)) {
			if (node.kind === "flow") {
				const callee = f.callees.get(node.id.value);
				if (callee) walk(callee, `${prefix}${node.id.value}/`, here);
				continue;
			}
			const agents: [AgentDef, string | undefined][] = [];
			if (node.kind === "agent") {
				const literal = f.agents.get(node.id.value);
				if (literal) agents.push([literal, undefined]);
				for (const [name, agent] of f.amongAgents.get(node.id.value) ?? []) agents.push([agent, name]);
			}
			// A swarm's members are resolved like agent nodes, one key per member agent.
			if (node.kind === "swarm")
				for (const m of f.members.get(node.id.value) ?? [])
					if (!agents.some(([, n]) => n === m.agent.name)) agents.push([m.agent, m.agent.name]);
			for (const [agent, among] of agents) {
				const nodeModel = node.kind === "agent" ? node.model?.value : undefined;
				const [spec, source]: [string | undefined, ModelSource] = runModel
					? [runModel, "run"]
					: nodeModel
						? [nodeModel, "node"]
						: here[0]
							? [here[0], "flow"]
							: agent.model
								? [agent.model, "agent"]
								: [undefined, "settings"];
				const found = resolve(spec);
				const key = modelKey(prefix, node.id.value, among);
				if (found.ok) {
					models.set(key, { ref: found.value.ref, ...(spec ? { spec } : {}), source });
					continue;
				}
				const near = found.nearest?.length ? ` Nearest: ${found.nearest.map((m) => `\`${m}\``).join(", ")}.` : "";
				const from = source === "settings" ? "pi settings" : `${source}'s model`;
				const error = `${prefix}${node.path}${among ? ` (${among})` : ""}: ${found.error} (from the ${from})${near}`;
				// A name written in a file is a fault where it is written; the run's --model and pi's settings
				// have no column.
				const at =
					source === "node" && node.kind === "agent" && node.model
						? { file: f.file, range: node.model.range }
						: source === "flow"
							? flowModelAt(f, flow)
							: source === "agent"
								? agentModelAt(agent)
								: undefined;
				if (at && !faults.some((x) => x.file === at.file && x.offset === at.range.start.offset)) {
					const message = `${found.error.replace(/\.?$/, ".")}${near}`;
					faults.push(
						fault("model-unknown", at.file, at.range, `${prefix}${node.path}`, message, {
							hint: "Name a model pi knows: `pi --list-models` lists them.",
							...(found.nearest?.length ? { expected: found.nearest } : {}),
						}),
					);
				}
				// The run's --model and pi's settings are one answer for every node: said once, naming them all.
				if (!at && (source === "settings" || source === "run")) {
					const said = `${found.error} (from the ${from})${near}`;
					shared.set(said, [...(shared.get(said) ?? []), `${prefix}${node.path}${among ? ` (${among})` : ""}`]);
					continue;
				}
				errors.push(error);
				if (!at) unplaced.push(error);
			}
		}
	};
	const shared = new Map<string, string[]>();
	walk(flow, "", []);
	for (const [said, paths] of shared) {
		const error = `${paths.join(", ")}: ${said}`;
		errors.push(error);
		unplaced.push(error);
	}
	return errors.length ? { ok: false, errors, faults, unplaced } : { ok: true, models };
}

/** Where the nearest flow out from `f` writes its `model:` (the callee's own, else a caller's). */
function flowModelAt(f: CheckedFlow, root: CheckedFlow): { file: string; range: Range } | undefined {
	if (f.model) return { file: f.file, range: f.model.range };
	return root.model ? { file: root.file, range: root.model.range } : undefined;
}

/** Where an agent file writes its `model:`: the line of the key, read from the file itself. */
function agentModelAt(agent: AgentDef): { file: string; range: Range } | undefined {
	let text: string;
	try {
		text = readFileSync(agent.file, "utf8");
	} catch {
		return undefined;
	}
	const m = /^model:[ \t]*(\S.*?)\s*$/m.exec(text);
	if (!m) return undefined;
	const start = m.index + m[0].indexOf(m[1]);
	return { file: agent.file, range: lineTable(text).range(start, start + m[1].length) };
}

/** What a run's models are resolved through and its credentials asked of: the pi door, as a launch sees it. */
export interface ModelDoor {
	resolveModel: ResolveModel;
	/** One line per provider without credentials, naming the nodes that use it. */
	missingCredentials(uses: Iterable<{ node: string; ref: string }>): Promise<string[]>;
}

/**
 * Every node's model resolved, and every provider they use holding credentials, or every reason why not:
 * what each launch (run, chain, resume, `/run`) asks before the first turn, so a missing key is one
 * refusal rather than a failed turn per node.
 */
export async function readyModels(
	flow: CheckedFlow,
	door: ModelDoor,
	runModel?: string,
): Promise<
	{ ok: true; models: Map<string, NodeModel> } | { ok: false; errors: string[]; faults?: Fault[]; unplaced?: string[] }
> {
	const resolved = resolveModels(flow, door.resolveModel, runModel);
	if (!resolved.ok) return resolved;
	const missing = await door.missingCredentials([...resolved.models].map(([node, m]) => ({ node, ref: m.ref })));
	return missing.length ? { ok: false, errors: missing } : resolved;
}
