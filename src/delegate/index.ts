/**
 * The `subagent` tool outside pi (the command line and the MCP server), as in pi: an agent whose tools list
 * `subagent` (Claude Code's `Task` and `Agent` read as it, combo's explorer writes it) gets the tool, one
 * level deeper, so a flow run from a terminal or another agent host delegates as the same flow run by `/run`
 * does. It sits in a folder of its own because both `src/cli` and `src/mcp` need it and the CLI imports the
 * MCP server. The tool is the extension's own (the same call, plan and depth bound); it is loaded only when
 * such an agent spawns, so a run without one starts as light as before.
 */
import type { Sources } from "../agents/index.ts";
import type { PiHost } from "../pi/index.ts";
import type { Spawn, SpawnRequest, ToolSpec } from "../runtime/index.ts";

/** The tool's name in agent files. */
const SUBAGENT = "subagent";

/**
 * `host.spawn`, handing the `subagent` tool to every agent that lists it. `runModel` is the run's model
 * (`--model`, or the script's for a dry run), which an agent the tool starts takes when it names none.
 */
export function withSubagentTool(host: PiHost, cwd: string, scope: Sources, runModel?: string): Spawn {
	let tools: ((request: SpawnRequest) => ToolSpec[]) | undefined;
	let wrapped: Spawn | undefined;
	return async (request) => {
		if (!(request.tools ?? request.agent.tools).includes(SUBAGENT)) return host.spawn(request);
		if (!wrapped) {
			// Loaded on first use: the tool's module carries the run it starts, which most runs never need.
			const { runChildTools, withChildTools } = await import("../extension/tool/index.ts");
			// The terminal has no pi session: no session model and no registry, so the tool's flows open a host
			// of their own from the agent dir, as a terminal run does.
			const session = { cwd, model: undefined, modelRegistry: undefined } as unknown as Parameters<
				typeof runChildTools
			>[0];
			tools = runChildTools(session, scope, host, runModel);
			wrapped = withChildTools(host.spawn, tools);
		}
		return wrapped(request);
	};
}
