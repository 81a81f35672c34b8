/**
 * A swarm: several members, one goal (its section), a board and claims; nobody divides the work. It runs
 * at most `rounds:` rounds of every member at once, so its bound is rounds × members turns and every member
 * is in flight together.
 */
import { isScalar, type Node } from "yaml";
import type { AgentDef } from "../../agents/index.ts";
import type { Located, SwarmNode } from "../../language/ast.ts";
import { type Entry, seqItems } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { readReads } from "../../language/build/reads.ts";
import { describe } from "../../language/build/yaml-nodes.ts";
import { turnTimeout } from "../../language/check/bounds.ts";
import { SWARM_TYPE } from "../../language/check/node-types.ts";
import { readAddress, readCondition } from "../../language/check/reads.ts";
import { lookupAgent } from "../../language/check/roster.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import { blockFacts } from "../../language/render/phrases.ts";
import { type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, KEY, ref, whole } from "../../language/keys.ts";
import { timeoutOf } from "../labels.ts";

/** `scout, reviewer ×2`: the members as the plan, Mermaid and the report print them. */
function members(node: SwarmNode): string {
	return node.members.map((m) => (m.count > 1 ? `${m.agent.value} ×${m.count}` : m.agent.value)).join(", ");
}

/** The swarm kind. */
export const swarmKind: KindModule<SwarmNode, "swarm"> = {
	kind: "swarm",
	kindKeys: [
		{
			key: "swarm",
			schema: {
				type: "array",
				minItems: 1,
				items: {
					anyOf: [
						{ type: "string", minLength: 1 },
						{
							type: "object",
							required: ["agent"],
							additionalProperties: false,
							properties: { agent: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1 } },
						},
					],
				},
				description: "The members: agent names or `{ agent, count }`.",
			},
			requires: ["rounds"],
		},
	],
	keys: {
		rounds: whole(1, "The most rounds the swarm may run."),
		"claims-from": address("A list of strings: the keys members may claim."),
		until: { ...ref("condition"), description: "The swarm stops when this holds." },
		reads: KEY.reads,
		timeout: KEY.timeout,
		reuse: KEY.reuse,
	},
	noRetry: "a swarm asks a failing member again next round",
	section: true,
	leaf: true,
	modelTurns: true,
	read: readSwarm,
	check: checkSwarm,
	output: () => SWARM_TYPE,
	bodies: () => [],
	bound(node, { flow }) {
		const count = node.members.reduce((a, m) => a + m.count, 0);
		const rounds = node.rounds?.value ?? 1;
		return { turns: rounds * count, ms: rounds * turnTimeout(node, flow).ms, waits: false };
	},
	width: (node) => node.members.reduce((a, m) => a + m.count, 0),
	timed: (node, ms) => ({ ...node, timeout: { value: ms, range: node.range } }),
	plan(node, row, c) {
		row.what = `swarm ${members(node)}`;
		row.reads = node.reads.map((r) => r.text);
		row.timeout = timeoutOf(node, c);
		row.settings = [
			...blockFacts(node),
			...(node.claimsFrom ? [`claims from ${node.claimsFrom.text}`] : []),
			...(node.until ? [`until ${node.until.text}`] : []),
		];
	},
	mermaid: (node, m) =>
		m.subgraph([node.id.value, "swarm", ...blockFacts(node), m.onFail].filter(Boolean), m.indent, (inner) => {
			for (const x of node.members)
				m.out.push(`${inner}${m.next()}[${m.label(x.count > 1 ? `${x.agent.value} ×${x.count}` : x.agent.value)}]`);
		}),
	graph: (node, g) => g.leaf(`swarm of ${members(node)}`),
};

/** `swarm: [scout, { agent: reviewer, count: 2 }]` with `rounds:`, `claims-from:`, `until:`. */
export function readSwarm(n: NodeInput): SwarmNode {
	const { ctx, keys, path } = n;
	const main = keys.get("swarm") as Entry;
	const node = {
		kind: "swarm",
		...base(n),
		members: [],
		reads: readReads(ctx, keys.get("reads"), path),
	} as unknown as SwarmNode;
	const items = seqItems(main.value);
	if (!items || items.length === 0)
		ctx.report(
			"key-type",
			main.range,
			`${path}.swarm`,
			"`swarm` is a non-empty list of members: agent names or `{ agent, count }`",
		);
	for (const item of items ?? []) node.members.push(...member(n, item, main));
	const rounds = keys.get("rounds");
	if (!rounds)
		ctx.report("missing-key", main.keyRange, `${path}.rounds`, "a swarm needs `rounds:`, the most rounds it may run");
	else {
		const r = ctx.int(rounds, `${path}.rounds`, 1);
		if (r) node.rounds = r;
	}
	const claims = keys.get("claims-from");
	if (claims) {
		const a = ctx.address(claims, `${path}.claims-from`);
		if (a) node.claimsFrom = a;
	}
	const until = keys.get("until");
	if (until) {
		const c = ctx.condition(until, `${path}.until`);
		if (c) node.until = c;
	}
	const timeout = keys.get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	return node;
}

function member(n: NodeInput, item: Node, main: Entry): SwarmNode["members"] {
	const range = n.ctx.rangeOf(item, main.range);
	if (isScalar(item) && typeof item.value === "string" && item.value.trim())
		return [{ agent: { value: item.value.trim(), range }, count: 1, range }];
	const entries = n.ctx.entries(item);
	const agent = entries?.find((e) => e.key === "agent");
	const count = entries?.find((e) => e.key === "count");
	if (!entries || !agent) {
		n.ctx.report(
			"key-type",
			range,
			`${n.path}.swarm`,
			`a member is an agent name or \`{ agent, count }\`, not ${describe(item)}`,
		);
		return [];
	}
	n.ctx.unknownKeys(entries, ["agent", "count"], `${n.path}.swarm`, "a member");
	const a = n.ctx.str(agent, `${n.path}.swarm`, "an agent's name");
	const c: Located<number> | undefined = count ? n.ctx.int(count, `${n.path}.swarm`, 1) : { value: 1, range };
	return a && c ? [{ agent: a, count: c.value, range }] : [];
}

/** A swarm: its members exist, its claims are a list of strings, and `until` reads its own output too. */
function checkSwarm(w: Walk, node: SwarmNode, scope: Scope): Type {
	const members: { agent: AgentDef; count: number }[] = [];
	w.members.set(node.id.value, members);
	for (const m of node.members) {
		const agent = lookupAgent(w, m.agent.value, m.agent.range, `${node.path}.swarm`, { swarm: true });
		if (agent) members.push({ agent, count: m.count });
	}
	if (node.claimsFrom) {
		const t = readAddress(w, node.claimsFrom, scope, `${node.path}.claims-from`);
		if (t && !(t.kind === "list" && (t.of.kind === "string" || t.of.kind === "enum"))) {
			report(
				w,
				"key-type",
				node.claimsFrom.range,
				`${node.path}.claims-from`,
				`\`claims-from\` reads a list of strings (the keys to claim); \`${node.claimsFrom.text}\` is ${typeToString(t)}`,
			);
		}
	}
	for (const read of node.reads) readAddress(w, read, scope, `${node.path}.reads`);
	if (node.until) {
		readCondition(
			w,
			node.until,
			scope.with({ id: node.id.value, type: SWARM_TYPE, handoff: false, ledger: false }),
			`${node.path}.until`,
		);
	}
	return SWARM_TYPE;
}
