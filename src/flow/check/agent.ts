/**
 * Agent nodes: the agent exists and is not broken (or, with `agent-from`, the enum it reads is exactly
 * `among`), the node's tools only narrow the agent's, `memory:` and `verdict:` name an enclosing scope,
 * and every read reads something.
 */
import { type AgentDef, agentSkillProblems, SUBAGENT_TOOLS, unknownTools } from "../../agents/index.ts";
import { didYouMean, missHint, nearest } from "../../faults/index.ts";
import { cover } from "../../text/index.ts";
import type { AgentNode } from "../ast.ts";
import type { Type } from "../types/index.ts";
import { agentType } from "./node-types.ts";
import { readAddress } from "./reads.ts";
import type { Scope } from "./scope.ts";
import { report, type Walk } from "./walk.ts";

/** Checks an agent node and gives its output type. */
export function checkAgent(w: Walk, node: AgentNode, scope: Scope): Type {
	const path = node.path;
	if (node.agent) {
		const agent = lookup(w, node.agent.value, node.agent.range, `${path}.agent`);
		if (agent) {
			w.agents.set(node.id.value, agent);
			narrow(w, node, agent);
		}
	} else if (node.agentFrom) {
		const t = readAddress(w, node.agentFrom, scope, `${path}.agent-from`);
		const byName = new Map<string, AgentDef>();
		for (const name of node.among ?? []) {
			const agent = lookup(w, name.value, name.range, `${path}.among`);
			if (agent) {
				byName.set(name.value, agent);
				narrow(w, node, agent);
			}
		}
		w.amongAgents.set(node.id.value, byName);
		// Without `among` the node is already refused (missing-key); the enum rule is then not a second mistake.
		if (t && t.kind !== "enum" && node.among) {
			report(
				w,
				"key-type",
				node.agentFrom.range,
				`${path}.agent-from`,
				`\`agent-from\` reads an enum of agent names; \`${node.agentFrom.text}\` is not one`,
				{
					hint: "Type the field in the earlier node's `output:`, e.g. `worker: scout | reviewer`.",
				},
			);
		} else if (t?.kind === "enum" && node.among) {
			const among = node.among.map((a) => a.value);
			const missing = t.values.filter((v) => !among.includes(v));
			const extra = among.filter((v) => !t.values.includes(v));
			if (missing.length || extra.length) {
				// The mistake is the name that is not in the enum, or else the list that lacks a value.
				const first = node.among.find((a) => extra.includes(a.value));
				const at = first ? first.range : cover(node.among[0].range, node.among[node.among.length - 1].range);
				report(
					w,
					"among-mismatch",
					at,
					`${path}.among`,
					`\`among\` must list exactly the enum's values (${t.values.join(", ")})${missing.length ? `; missing ${missing.join(", ")}` : ""}${extra.length ? `; not in the enum: ${extra.join(", ")}` : ""}`,
					{ expected: [...t.values] },
				);
			}
		}
	}
	for (const read of node.reads) readAddress(w, read, scope, `${path}.reads`);
	readsSkills(w, node);
	if (node.skills) {
		const found = [];
		for (const name of node.skills) {
			const skill = w.skills?.find(name.value);
			if (skill) found.push(skill);
			else {
				const near = nearest(name.value, w.skills?.names() ?? []);
				report(w, "unknown-skill", name.range, `${path}.skills`, `no skill \`${name.value}\`.${didYouMean(near)}`, {
					expected: near ? [near] : [],
				});
			}
		}
		w.nodeSkills.set(node.id.value, found);
	}
	if (node.verdict) {
		const block = scope.block(node.verdict.value);
		if (!block?.ledger) {
			const ledgers = scope.enclosing.filter((e) => e.ledger).map((e) => e.id);
			report(
				w,
				"unknown-scope",
				node.verdict.range,
				`${path}.verdict`,
				`\`verdict\` names an enclosing node with a \`ledger:\`; \`${node.verdict.value}\` is not one.${didYouMean(nearest(node.verdict.value, ledgers))}`,
			);
		}
	}
	if (node.memory) {
		const scopeId = node.memory.value;
		if (scopeId !== "flow" && !scope.block(scopeId)) {
			const names = ["flow", ...scope.enclosing.map((e) => e.id)];
			report(
				w,
				"unknown-scope",
				node.memory.range,
				`${path}.memory`,
				`\`memory\` names an enclosing node or \`flow\`; \`${scopeId}\` is not one.${didYouMean(nearest(scopeId, names))}`,
			);
		} else {
			for (const agent of node.agent ? [node.agent.value] : (node.among ?? []).map((a) => a.value)) {
				w.memory.push({ scope: scopeId, agent, node, ...(node.output ? { output: node.output.value } : {}) });
			}
		}
	}
	return agentType(node.output?.value, !!node.verdict);
}

/**
 * The agent a node (or a swarm member) names, reported where it is named when it is unknown, broken, or
 * lists a tool a flow's subagent cannot have (the agent is still returned then: its other facts hold).
 */
export function lookup(w: Walk, name: string, range: AgentNode["range"], path: string): AgentDef | undefined {
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

/**
 * A subagent given skills must be able to read them: a skill is a folder, and its SKILL.md sends the model
 * to the files beside it. The node's own `skills:` with tools (the node's, else its agent's) lacking `read`,
 * or a node whose `tools:` narrows `read` away from an agent that has skills, is `skills-without-read`. An
 * agent that has skills but no `read` at all is reported where the agent is named (agentSkills).
 */
function readsSkills(w: Walk, node: AgentNode): void {
	const agents = node.agent ? [w.agents.get(node.id.value)] : [...(w.amongAgents.get(node.id.value)?.values() ?? [])];
	for (const agent of agents) {
		if (!agent) continue;
		const tools = node.tools ? node.tools.map((t) => t.value) : agent.tools;
		// An agent with skills and no `read` is reported where it is named; the node's skills are the same slip.
		if (tools.includes("read") || (!node.tools && agent.skills?.length)) continue;
		if (node.skills?.length) {
			report(
				w,
				"skills-without-read",
				node.skills[0].range,
				`${node.path}.skills`,
				`the node gives its subagent skills, and the tools it runs with (${tools.join(", ") || "none"}) leave out \`read\`: its model could not open one`,
				{ hint: "Keep `read` among the node's tools (and the agent's), or drop the skills.", expected: ["read"] },
			);
			return;
		}
		if (node.tools && agent.skills?.length && agent.tools.includes("read")) {
			report(
				w,
				"skills-without-read",
				node.tools.length ? cover(node.tools[0].range, node.tools[node.tools.length - 1].range) : node.range,
				`${node.path}.tools`,
				`the node's \`tools:\` leaves out \`read\`, and its agent \`${agent.name}\` has skills its model opens with \`read\``,
				{ hint: "Keep `read` among the node's tools.", expected: ["read"] },
			);
			return;
		}
	}
}

/** A node's `tools:` may only narrow its agent's: a prompt is not a permission boundary, a tool list is. */
function narrow(w: Walk, node: AgentNode, agent: AgentDef): void {
	for (const tool of node.tools ?? []) {
		if (!agent.tools.includes(tool.value)) {
			report(
				w,
				"tools-widen",
				tool.range,
				`${node.path}.tools`,
				`\`${tool.value}\` is not among the tools \`${agent.name}\` is granted (${agent.tools.join(", ") || "none"}); a node can only narrow them`,
			);
		}
	}
}
