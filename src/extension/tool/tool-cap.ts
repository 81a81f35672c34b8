/**
 * A child never has more than its parent. The `subagent` tool hands work to agents with tools of their
 * own; without a cap, a session started with `--exclude-tools bash` (or `--no-builtin-tools`, `--tools
 * -bash`) had its own bash refused, yet `subagent {agent: worker}` ran bash through the shipped worker. So
 * every turn a call spawns gets at most the tools of whoever holds the tool: the session's active tools at
 * the top, then each agent's own tools for its children, and so down, through chains and whole flows.
 *
 * Example: cap `{read, subagent}`; `worker` (read, bash, edit, write) is spawned with tools `[read]`.
 */
import type { Spawn, SpawnRequest } from "../../runtime/index.ts";

/** The tool names a call's children may have; undefined when nothing above limits them. */
export type ToolCap = ReadonlySet<string> | undefined;

/** The tools a spawn request asks for: the node's narrowing, else the agent's own. */
export function toolsOf(request: SpawnRequest): readonly string[] {
	return request.tools ?? request.agent.tools;
}

/** A spawn whose every turn gets at most `cap` (pi-flows' own protocol tools, added by the run, are not tools a parent grants). */
export function cappedSpawn(spawn: Spawn, cap: ToolCap): Spawn {
	if (!cap) return spawn;
	return (request) => spawn({ ...request, tools: toolsOf(request).filter((t) => cap.has(t)) });
}

/** The cap of a child's own children: what the child itself was given, within the cap above it. */
export function childCap(cap: ToolCap, request: SpawnRequest): ReadonlySet<string> {
	const own = toolsOf(request);
	return new Set(cap ? own.filter((t) => cap.has(t)) : own);
}
