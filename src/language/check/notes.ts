/**
 * Notes: what the checker tells without refusing. An agent file written for a peer (combo, Claude Code) may
 * carry keys pi-flows keeps but does not act on; each agent a flow names says so once, at its first use,
 * with the keys' places in the agent file as related locations. A note never stops a run.
 *
 *   agent: auditor   →  note agent-keys: the agent `auditor` (…/auditor.md) has keys pi-flows keeps but
 *                        does not act on: `concurrency` is kept but has no effect here (…)
 */
import { type AgentDef, DEFAULT_TOOLS, type Roster } from "../../agents/index.ts";
import { type Fault, fault } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import { allNodes, type Flow } from "../ast.ts";

/** Says that an agent naming no `tools:` runs with its peer's default, which gives more than ours. */
function peerDefault(agent: AgentDef): string {
	return `the agent \`${agent.name}\` (${agent.file}) names no \`tools:\`, and ${agent.toolsFrom} gives such an agent ${agent.toolsFrom === "Claude Code" ? "every tool" : "pi's default tools"}, so it runs with ${agent.tools.join(", ")}: more than pi-flows' own default (${DEFAULT_TOOLS.join(", ")})`;
}

/**
 * One note per agent the flow names whose file carries keys pi-flows does not act on, and one per agent
 * running with a peer's default tools (`peer-default-tools`), both at the node's first naming of it.
 */
export function agentNotes(flow: Flow, roster: Roster): Fault[] {
	const seen = new Set<string>();
	const notes: Fault[] = [];
	const use = (name: string, range: Range, path: string) => {
		if (seen.has(name)) return;
		seen.add(name);
		const entry = roster.get(name);
		if (entry?.kind !== "agent") return;
		if (entry.toolsFrom) notes.push(fault("peer-default-tools", flow.file, range, path, peerDefault(entry)));
		if (!entry.notes?.length) return;
		const said = entry.notes.map((n) => n.message).join("; ");
		const message = `the agent \`${name}\` (${entry.file}) has keys pi-flows keeps but does not act on: ${said}`;
		const related = entry.notes.map((n) => ({ message: n.message, file: entry.file, line: n.line, column: n.column }));
		notes.push(fault("agent-keys", flow.file, range, path, message, { related }));
	};
	for (const node of allNodes(flow.nodes)) {
		if (node.kind === "agent") {
			if (node.agent) use(node.agent.value, node.agent.range, `${node.path}.agent`);
			for (const a of node.among ?? []) use(a.value, a.range, `${node.path}.among`);
		} else if (node.kind === "swarm") {
			for (const m of node.members) use(m.agent.value, m.agent.range, `${node.path}.members`);
		}
	}
	return notes;
}
