/**
 * The agent a node names, found in the checker's roster: shared by the kinds that name agents (an agent
 * node, a swarm's members), each reporting an unknown, broken or overreaching agent where it is named.
 */
import { type AgentDef, agentSkillProblems, SUBAGENT_TOOLS, unknownTools } from "../../agents/index.ts";
import { didYouMean, missHint, nearest } from "../../faults/index.ts";
import type { AgentNode } from "../ast.ts";
import { report, type Walk } from "./walk.ts";

/**
 * The agent a node (or a swarm member) names, reported where it is named when it is unknown, broken, or
 * lists a tool a flow's subagent cannot have (the agent is still returned then: its other facts hold).
 */
export function lookupAgent(w: Walk, name: string, range: AgentNode["range"], path: string): AgentDef | undefined {
	const entry = w.roster.get(name);
	if (!entry) {
		const hint = missHint(name, w.roster.names(), {
			what: "agents",
			where:
				"they are the `.md` files of the package's `agents/`, `~/.pi/agent/agents/` and the project's `.pi/agents/`",
		});
		report(w, "unknown-agent", range, path, `no agent \`${name}\`.${hint.text}`, {
			expected: hint.near ? [hint.near] : [],
		});
		return undefined;
	}
	if (entry.kind === "broken") {
		report(w, "broken-agent", range, path, `the agent \`${entry.name}\` (${entry.file}) is broken: ${entry.cause}`);
		return undefined;
	}
	const unknown = unknownTools(entry.tools);
	if (unknown.length) {
		const near = nearest(unknown[0], SUBAGENT_TOOLS);
		const named = unknown.map((t) => `\`${t}\``).join(", ");
		report(
			w,
			"unknown-tool",
			range,
			path,
			`the agent \`${entry.name}\` (${entry.file}) lists ${named}, which a flow's subagent cannot have (it can have ${SUBAGENT_TOOLS.join(", ")}).${didYouMean(near)}`,
			{
				hint: "Flow subagents load no pi extensions, so an extension's tool is never there.",
				expected: near ? [near] : [],
			},
		);
	}
	agentSkills(w, entry, range, path);
	return entry;
}

/**
 * An agent's own `skills:`, as the roster looked them up: each must be found, and none may be one pi keeps
 * out of a model's list (`disable-model-invocation`); an agent that names skills needs `read`. Reported
 * where the node names the agent (as `unknown-tool`), the message saying where the agent file names it.
 */
function agentSkills(w: Walk, agent: AgentDef, range: AgentNode["range"], path: string): void {
	for (const p of agentSkillProblems(agent)) {
		const hint =
			p.code === "skills-without-read"
				? "Add `read` to the agent's `tools:`, or drop its `skills:`."
				: p.code === "unknown-skill"
					? "A skill goes by the `name:` in its SKILL.md, not its folder's name."
					: "Name it in the node's `skills:` instead (given whole, as `/skill:` gives it), or drop it.";
		const expected = p.code === "skills-without-read" ? ["read"] : p.near ? [p.near] : undefined;
		report(w, p.code, range, path, p.message, { hint, ...(expected ? { expected } : {}) });
	}
}
