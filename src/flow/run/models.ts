/**
 * Every node's model is resolved before the first turn, nearest wins: the run's option, then the node's
 * `model:`, then the flow's, then the agent's frontmatter, then pi's settings. An unknown model is an
 * error naming the node, and nothing spawns.
 */
import { allNodes } from "../ast.ts";
import type { CheckedFlow } from "../check/index.ts";

/** Resolves a reference to `provider/id` or says why not (the pi door's `resolveModel`). */
export type ResolveModel = (ref: string | undefined) => { ok: true; value: { ref: string; thinking?: string } } | { ok: false; error: string };

/** Where a node's model came from, for plans and progress lines. */
export type ModelSource = "run" | "node" | "flow" | "agent" | "settings";

/** A node's model as resolved. */
export interface NodeModel {
	ref: string;
	/** The reference as written (passed to spawn so a thinking suffix survives). */
	spec?: string;
	source: ModelSource;
}

/** Resolves every agent node's model, or lists what cannot be resolved. */
export function resolveModels(
	flow: CheckedFlow,
	resolve: ResolveModel,
	runModel?: string,
): { ok: true; models: Map<string, NodeModel> } | { ok: false; errors: string[] } {
	const models = new Map<string, NodeModel>();
	const errors: string[] = [];
	for (const node of allNodes(flow.nodes)) {
		if (node.kind !== "agent") continue;
		const agent = flow.agents.get(node.id.value);
		const [spec, source]: [string | undefined, ModelSource] = runModel
			? [runModel, "run"]
			: node.model
				? [node.model.value, "node"]
				: flow.model
					? [flow.model.value, "flow"]
					: agent?.model
						? [agent.model, "agent"]
						: [undefined, "settings"];
		const found = resolve(spec);
		if (found.ok) models.set(node.id.value, { ref: found.value.ref, ...(spec ? { spec } : {}), source });
		else errors.push(`${node.path}: ${found.error} (from the ${source === "settings" ? "pi settings" : `${source}'s model`})`);
	}
	return errors.length ? { ok: false, errors } : { ok: true, models };
}
