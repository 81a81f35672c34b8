/**
 * What each node of a flow can read, for an editor: the checker's visibility rules replayed over the AST
 * (which builds even when the flow has faults), with types from the last version that checked. The checker
 * only hands its types over with a flow that has no fault, and while someone types there nearly always is
 * one; so types come from what is known, and an address whose type is not known is still offered.
 *
 *   input:  nodes plan (output { tasks: [string] }), work
 *   output: before work: input, plan (plan.output.tasks: [string]); inside a map: item; in a loop: previous
 */
import {
	allNodes,
	type Flow,
	type FlowNode,
	intersect,
	STRING,
	TEXT,
	type Type,
	VERDICT_TYPE,
} from "../flow/check-only.ts";
import { resolveAddress } from "./addresses.ts";
import type { Cursor } from "./cursor.ts";

/** A node that ended and can be read. */
export interface Seen {
	id: string;
	type?: Type;
	/** Agent turns leave a handoff document. */
	agent: boolean;
	ledger: boolean;
}

/** A block the point is inside. */
export interface Around {
	id: string;
	kind: FlowNode["kind"];
	/** In a map: the item's type (when known). */
	map: boolean;
	item?: Type;
	/** In a loop: its body's nodes, for `<loop>.previous.<node>`. */
	previous?: ReadonlyMap<string, Type | undefined>;
	/** In a loop with `carry:`. */
	carry: boolean;
	carryType?: Type;
	ledger: boolean;
}

/** What is readable at one point. */
export interface Here {
	input: Type;
	seen: readonly Seen[];
	around: readonly Around[];
}

/** The points an editor asks about: before and after each node, and the start and end of each body. */
export interface Scopes {
	root: Here;
	before: Map<string, Here>;
	after: Map<string, Here>;
	bodyStart: Map<string, Here>;
	bodyEnd: Map<string, Here>;
	/** Every node by id, for kinds and ranges. */
	nodes: Map<string, FlowNode>;
}

/** An agent's type is in its own node (`output:`, `verdict:`), so it is current even when the flow is not. */
function nodeType(node: FlowNode, types: ReadonlyMap<string, Type>): Type | undefined {
	if (node.kind === "agent") return node.verdict ? VERDICT_TYPE : (node.output?.value ?? TEXT);
	return types.get(node.id.value);
}

/** Replays visibility over `flow`; `types` are the output types known by node id. */
export function scopesOf(flow: Flow, types: ReadonlyMap<string, Type>): Scopes {
	const root: Here = { input: flow.input.value, seen: [], around: [] };
	const out: Scopes = {
		root,
		before: new Map(),
		after: new Map(),
		bodyStart: new Map(),
		bodyEnd: new Map(),
		nodes: new Map(),
	};
	for (const n of allNodes(flow.nodes)) out.nodes.set(n.id.value, n);
	const inside = (here: Here, a: Around): Here => ({ ...here, around: [...here.around, a] });
	const plain = (node: FlowNode): Around => ({
		id: node.id.value,
		kind: node.kind,
		map: false,
		carry: false,
		ledger: false,
	});
	const sequence = (nodes: readonly FlowNode[], start: Here): Here => {
		let here = start;
		for (const node of nodes) {
			out.before.set(node.id.value, here);
			block(node, here);
			const ledger = (node.kind === "loop" || node.kind === "map") && !!node.ledger;
			here = {
				...here,
				seen: [...here.seen, { id: node.id.value, type: nodeType(node, types), agent: node.kind === "agent", ledger }],
			};
			out.after.set(node.id.value, here);
		}
		return here;
	};
	const block = (node: FlowNode, here: Here) => {
		const id = node.id.value;
		if (node.kind === "choice" || node.kind === "parallel") {
			const body = inside(here, plain(node));
			out.bodyStart.set(id, body);
			const bodies =
				node.kind === "choice" ? [...node.cases.map((c) => c.body), node.otherwise] : node.branches.map((b) => b.body);
			for (const b of bodies) sequence(b, body);
		} else if (node.kind === "map") {
			const from = node.from ? resolveAddress(here, node.from.text)?.type : undefined;
			const item = node.from ? (from?.kind === "list" ? from.of : undefined) : STRING;
			const body = inside(here, { ...plain(node), map: true, ...(item ? { item } : {}), ledger: !!node.ledger });
			out.bodyStart.set(id, body);
			out.bodyEnd.set(id, sequence(node.body, body));
		} else if (node.kind === "loop") {
			const previous = new Map(node.body.map((n) => [n.id.value, nodeType(n, types)]));
			const first = node.carry ? resolveAddress(here, node.carry.first.text)?.type : undefined;
			const loop = (carryType: Type | undefined): Here => {
				const body = inside(here, {
					...plain(node),
					previous,
					carry: !!node.carry,
					...(carryType ? { carryType } : {}),
					ledger: !!node.ledger,
				});
				out.bodyStart.set(id, body);
				const end = sequence(node.body, body);
				out.bodyEnd.set(id, end);
				return end;
			};
			const end = loop(first);
			// As the checker does: the carry is what `first` and `next` share, and `next` is read after the body.
			const next = node.carry ? resolveAddress(end, node.carry.next.text)?.type : undefined;
			const both = first && next ? intersect(first, next) : undefined;
			if (both && both !== first) loop(both);
		}
	};
	sequence(flow.nodes, root);
	return out;
}

/**
 * What the cursor's key reads: a loop's `loop:`/`give-up:` and `carry.next` see its finished body, a
 * swarm's `until:` sees the swarm, a case's `when:` what ran before the choice, anything else what ran
 * before the node. A node not in the last build (no id yet, or a new one) reads what its predecessor in
 * the same list could, then what its block's body starts with.
 */
export function hereAt(scopes: Scopes, cursor: Cursor): Here {
	const own = cursor.nodes[cursor.nodes.length - 1];
	const parent = cursor.nodes[cursor.nodes.length - 2];
	const id = own?.id;
	if (id !== undefined && scopes.before.has(id)) {
		const key = cursor.key;
		const end = scopes.bodyEnd.get(id);
		if (end && cursor.role === "node" && (key === "loop" || key === "give-up")) return end;
		if (end && cursor.role === "carry" && key === "next") return end;
		if (cursor.role === "node" && key === "until") return scopes.after.get(id) ?? scopes.root;
		return scopes.before.get(id) ?? scopes.root;
	}
	if (own?.prevId !== undefined && scopes.after.has(own.prevId)) return scopes.after.get(own.prevId) ?? scopes.root;
	if (parent?.id !== undefined && scopes.bodyStart.has(parent.id))
		return scopes.bodyStart.get(parent.id) ?? scopes.root;
	return scopes.root;
}
