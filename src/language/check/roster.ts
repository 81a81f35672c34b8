/**
 * The agent a node names, found in the checker's roster: shared by the kinds that name agents (an agent
 * node, a swarm's members), each reporting an unknown, broken or overreaching agent where it is named.
 */
import {
	type AgentDef,
	agentSkillProblems,
	SUBAGENT_TOOLS,
	skippedSentence,
	unknownTools,
} from "../../agents/index.ts";
import { didYouMean, missHint, nearest } from "../../faults/index.ts";
import type { AgentNode } from "../ast.ts";
import { report, type Walk } from "./walk.ts";

/** combo's name for the tool of a swarm's board, which a pi-flows swarm provides as its own board. */
const SWARM_BOARD = "board";

/**
 * The agent a node (or a swarm member) names, reported where it is named when it is unknown, broken, or
 * lists a tool a flow's subagent cannot have (the agent is still returned then: its other facts hold).
 */
export function lookupAgent(
	w: Walk,
	name: string,
	range: AgentNode["range"],
	path: string,
	at: { swarm?: boolean } = {},
): AgentDef | undefined {
	const entry = w.roster.get(name);
	if (!entry) {
		const places = w.roster.places;
		const hint = missHint(name, w.roster.names(), {
			what: "agents",
			where: places
				? `they are the agent files of ${places.read.join(", ")}`
				: "they are the `.md` files of the package's `agents/`, `~/.pi/agent/agents/`, `~/.claude/agents/` and the project's `.pi/agents/` and `.claude/agents/`",
		});
		const skipped = places ? skippedSentence(places, name) : "";
		report(w, "unknown-agent", range, path, `no agent \`${name}\`.${hint.text}${skipped}`, {
			expected: hint.near ? [hint.near] : [],
		});
		return undefined;
	}
	if (entry.kind === "broken") {
		report(w, "broken-agent", range, path, `the agent \`${entry.name}\` (${entry.file}) is broken: ${entry.cause}`);
		return undefined;
	}
	// combo's swarm members list `board`: inside a swarm the swarm's own board stands for that tool.
	const unknown = unknownTools(entry.tools).filter((t) => !(at.swarm && t === SWARM_BOARD));
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
				hint: unknown.includes(SWARM_BOARD)
					? "`board` is combo's swarm board: a `swarm:` node gives its members one; name the agent there."
					: "Flow subagents load no pi extensions, so an extension's tool is never there.",
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
