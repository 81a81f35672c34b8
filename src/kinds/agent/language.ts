/**
 * An agent node: one turn of an agent, named literally (`agent:`) or picked from an enum value
 * (`agent-from:` with `among:`), with its reads, its output type and its per-node settings. Its bound is
 * `(1 + retry) × (1 + continuations)` turns, each lasting its timeout; it has one turn in flight.
 */
import type { AgentDef } from "../../agents/index.ts";
import { didYouMean, nearest } from "../../faults/index.ts";
import { cover } from "../../text/index.ts";
import type { AgentNode } from "../../language/ast.ts";
import { readHandoff, readReads } from "../../language/build/reads.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { THINKING_LEVELS } from "../../language/build/words.ts";
import { DEFAULT_CONTINUATIONS, turnTimeout } from "../../language/check/bounds.ts";
import { agentType } from "../../language/check/node-types.ts";
import { readAddress } from "../../language/check/reads.ts";
import { lookupAgent } from "../../language/check/roster.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import { type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, KEY, ref, text, whole } from "../../language/keys.ts";
import { modelOf, timeoutOf } from "../labels.ts";

const names = (description: string) => ({
	type: "array",
	minItems: 1,
	uniqueItems: true,
	items: { type: "string", minLength: 1 },
	description,
});

/** The agent kind. */
export const agentKind: KindModule<AgentNode, "agent" | "agent-from"> = {
	kind: "agent",
	kindKeys: [
		{
			key: "agent",
			schema: text("An agent of the roster, by name."),
			excludes: ["among"],
			rules: { not: { required: ["verdict", "output"] } },
		},
		{
			key: "agent-from",
			schema: address("An address naming an enum of agent names; goes with `among:`."),
			requires: ["among"],
			rules: { not: { required: ["verdict", "output"] } },
		},
	],
	keys: {
		among: names("The agents `agent-from` may pick: exactly the enum's values."),
		reads: KEY.reads,
		output: {
			...ref("type"),
			description: "The output's type (short notation or `{ json-schema: ... }`); the model answers through `submit`.",
		},
		memory: text("An enclosing node's id, or `flow`: nodes naming the same agent and scope share one subagent."),
		verdict: text("The id of an enclosing loop or map with `ledger:`; the turn answers `{ approved, remarks? }`."),
		retry: whole(0, "Extra attempts after a provider, timeout or schema failure. Default 0."),
		timeout: KEY.timeout,
		model: text("A model like `provider/id` (a `:thinking` suffix is allowed) for this node alone."),
		thinking: { enum: THINKING_LEVELS, description: "The thinking level of this node's turns." },
		tools: names("Narrows the agent's tools; never widens them."),
		skills: names("Skills this node's turns may load, by name."),
		handoff: { ...ref("handoff"), description: "This node's handoff settings." },
		pane: {
			type: "boolean",
			description: "Open a terminal pane (tmux, herdr) following each visit's turns; closed when the visit ends.",
		},
		openInHerdr: { type: "boolean", description: "combo's name for `pane`." },
		reuse: KEY.reuse,
	},
	section: true,
	leaf: true,
	modelTurns: true,
	read: readAgent,
	check: checkAgent,
	output: (node) => agentType(node.output?.value, !!node.verdict),
	bodies: () => [],
	bound(node, { flow }) {
		const continuations =
			node.handoff?.continuations?.value ?? flow.handoff?.continuations?.value ?? DEFAULT_CONTINUATIONS;
		const turns = (1 + (node.retry?.value ?? 0)) * (1 + continuations);
		return { turns, ms: turns * turnTimeout(node, flow).ms, waits: false };
	},
	width: () => 1,
	timed: (node, ms) => ({ ...node, timeout: { value: ms, range: node.range } }),
	plan(node, row, c) {
		const { flow, options } = c;
		const agents = node.agent
			? [[node.agent.value, flow.agents.get(node.id.value)] as const]
			: (node.among ?? []).map((a) => [a.value, flow.amongAgents.get(node.id.value)?.get(a.value)] as const);
		const names = agents.map(([name, def]) => (def ? `${name} (${c.display(def.file)})` : name)).join(", ");
		row.what = node.agentFrom ? `agent from ${node.agentFrom.text}: ${names}` : `agent ${names}`;
		row.reads = node.reads.map((r) => r.text);
		const type = flow.types.get(node.id.value);
		if (node.output && type) row.output = typeToString(type);
		row.model = modelOf(
			node.model?.value,
			flow.model?.value,
			options.runModel,
			agents.map(([, def]) => def),
		);
		// One model for the node (not an agent-from list): show what pi resolves it to.
		if (options.resolveModel && agents.length <= 1) {
			const resolved = options.resolveModel(row.model?.ref);
			if (resolved && row.model) row.model.resolved = resolved;
		}
		if (node.thinking) row.thinking = node.thinking.value;
		if (node.tools) row.tools = node.tools.map((t) => t.value);
		// A peer's default (no `tools:`) gives more than ours: the plan says so where the agent is named.
		const peer = node.tools ? undefined : agents.find(([, def]) => def?.toolsFrom)?.[1];
		if (peer) row.settings.push(`tools ${peer.tools.join(", ")} (${peer.toolsFrom}'s default: no \`tools:\`)`);
		if (node.skills) row.settings.push(`skills ${node.skills.map((k) => k.value).join(", ")}`);
		// The agent file's own skills, offered to the subagent (docs/flows.md, Skills).
		const offered = [...new Set(agents.flatMap(([, def]) => (def?.skills ?? []).map((k) => k.name)))];
		if (offered.length) row.settings.push(`agent skills ${offered.join(", ")}`);
		row.timeout = timeoutOf(node, c);
		if (node.retry) row.retry = node.retry.value;
		if (node.memory) row.memory = node.memory.value;
		if (node.verdict) row.verdict = node.verdict.value;
	},
	mermaid: (node, m) =>
		m.box(
			node.agent
				? [node.agent.value]
				: [`${(node.among ?? []).map((a) => a.value).join(", ")} (from ${node.agentFrom?.text ?? "?"})`],
		),
	graph: (node, g) => g.leaf(node.agent ? `agent ${node.agent.value}` : `agent from ${node.agentFrom?.text ?? "?"}`),
};

/** Reads an agent node. */
export function readAgent(n: NodeInput): AgentNode {
	const { ctx, keys, path } = n;
	const node: AgentNode = { kind: "agent", ...base(n), reads: readReads(ctx, keys.get("reads"), path) };
	const main = keys.get(n.kindKey) as Entry;
	if (n.kindKey === "agent") {
		const agent = ctx.str(main, `${path}.agent`, "an agent's name");
		if (agent) node.agent = agent;
		const among = keys.get("among");
		if (among)
			ctx.report(
				"among-without-from",
				among.keyRange,
				`${path}.among`,
				"`among` goes with `agent-from`, not with a literal `agent`",
			);
	} else {
		const from = ctx.address(main, `${path}.agent-from`);
		if (from) node.agentFrom = from;
		const among = keys.get("among");
		if (!among)
			ctx.report("missing-key", main.keyRange, `${path}.among`, "`agent-from` needs `among:`, the agents it may pick");
		else {
			const names = ctx.names(among, `${path}.among`, "agent names");
			if (names) node.among = names;
		}
	}
	const get = (key: string) => keys.get(key);
	const output = get("output");
	const verdict = get("verdict");
	if (output && verdict)
		ctx.report(
			"verdict-with-output",
			output.keyRange,
			`${path}.output`,
			"a `verdict:` node answers `{ approved, remarks? }` through the verdict tool; it takes no `output:`",
		);
	else if (output) {
		const t = ctx.type(output, `${path}.output`);
		if (t) node.output = t;
		// The type was refused where written; reads into this node's output would repeat that one mistake.
		else n.refused.add(`${n.id.value}.output`);
	}
	if (verdict) {
		const v = ctx.str(verdict, `${path}.verdict`, "the id of an enclosing node with a `ledger:`");
		if (v) node.verdict = v;
	}
	for (const key of ["pane", "openInHerdr"]) {
		const e = get(key);
		const v = e ? ctx.bool(e, `${path}.${key}`) : undefined;
		if (v) node.pane = v;
	}
	const memory = get("memory");
	if (memory) {
		const m = ctx.str(memory, `${path}.memory`, "an enclosing node's id or `flow`");
		if (m) node.memory = m;
	}
	const retry = get("retry");
	if (retry) {
		const r = ctx.int(retry, `${path}.retry`, 0);
		if (r) node.retry = r;
	}
	const timeout = get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	const model = get("model");
	if (model) {
		const m = ctx.str(model, `${path}.model`, "a model like `provider/id`");
		if (m) node.model = m;
	}
	const thinking = get("thinking");
	if (thinking) {
		const t = ctx.str(thinking, `${path}.thinking`, `one of ${THINKING_LEVELS.join(", ")}`);
		if (t && !THINKING_LEVELS.includes(t.value)) {
			ctx.report(
				"key-type",
				t.range,
				`${path}.thinking`,
				`\`thinking\` must be one of ${THINKING_LEVELS.join(", ")}, not \`${t.value}\``,
				{ expected: THINKING_LEVELS },
			);
		} else if (t) node.thinking = t;
	}
	const tools = get("tools");
	if (tools) {
		const t = ctx.names(tools, `${path}.tools`, "tool names");
		if (t) node.tools = t;
	}
	const skills = get("skills");
	if (skills) {
		const s = ctx.names(skills, `${path}.skills`, "skill names");
		if (s) node.skills = s;
	}
	const handoff = get("handoff");
	if (handoff) {
		const h = readHandoff(ctx, handoff, `${path}.handoff`);
		if (h) node.handoff = h;
	}
	return node;
}

/** Checks an agent node and gives its output type. */
function checkAgent(w: Walk, node: AgentNode, scope: Scope): Type {
	const path = node.path;
	if (node.agent) {
		const agent = lookupAgent(w, node.agent.value, node.agent.range, `${path}.agent`);
		if (agent) {
			w.agents.set(node.id.value, agent);
			narrow(w, node, agent);
		}
	} else if (node.agentFrom) {
		const t = readAddress(w, node.agentFrom, scope, `${path}.agent-from`);
		const byName = new Map<string, AgentDef>();
		for (const name of node.among ?? []) {
			const agent = lookupAgent(w, name.value, name.range, `${path}.among`);
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
