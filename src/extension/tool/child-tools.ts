/**
 * An agent whose `tools:` names `subagent` gets the tool: pi-flows hands it over as one of the turn's own
 * tools (subagents load no extensions), built one level deeper than its parent, so the depth travels with
 * the tool and the bound holds however the tree of delegations grows.
 */
import type { Spawn, SpawnRequest } from "../../runtime/index.ts";
import type { ToolSpec } from "../../runtime/index.ts";

/** The tool's name in agent files and in pi. */
export const SUBAGENT_TOOL = "subagent";

/** Wraps `spawn` so agents that list `subagent` receive `tools(request)` as theirs. */
export function withChildTools(spawn: Spawn, tools: ((request: SpawnRequest) => ToolSpec[]) | undefined): Spawn {
	if (!tools) return spawn;
	return (request) => {
		const allowed = request.tools ?? request.agent.tools;
		if (!allowed.includes(SUBAGENT_TOOL)) return spawn(request);
		return spawn({
			...request,
			// The tool arrives as one of our own; named among pi's built-ins too, pi would be asked for two.
			tools: allowed.filter((t) => t !== SUBAGENT_TOOL),
			customTools: [...(request.customTools ?? []), ...tools(request)],
		});
	};
}
