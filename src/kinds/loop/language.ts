/**
 * A loop: its body repeats until its condition holds, at most `max:` times (`give-up:`, `carry:`, `ledger:`).
 * Its worst case is `max` bodies; in flight, its body's widest part.
 */
import { allNodes, type FlowNode, type LoopNode } from "../../language/ast.ts";
import { ownId, readBody } from "../../language/build/blocks.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { entryType, STOP_TYPE } from "../../language/check/node-types.ts";
import { readAddress, readCondition } from "../../language/check/reads.ts";
import type { Enclosing, Scope } from "../../language/check/scope.ts";
import { checkSequence, type SequenceOut } from "../../language/check/sequence.ts";
import { bodyStart, report, type Walk } from "../../language/check/walk.ts";
import { blockFacts } from "../../language/render/phrases.ts";
import type { Segment } from "../../language/syntax/index.ts";
import { BOOLEAN, field, intersect, NUMBER, objectOf, type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, KEY, ref } from "../../language/keys.ts";

/** The loop kind. */
export const loopKind: KindModule<LoopNode, "loop"> = {
	kind: "loop",
	kindKeys: [
		{
			key: "loop",
			schema: { ...ref("condition"), description: "The body repeats until this holds, at most `max:` times." },
			requires: ["max", "do"],
		},
	],
	keys: {
		do: KEY.do,
		max: KEY.max,
		"give-up": {
			...ref("condition"),
			description: "Read when the loop's condition is false: true ends the loop not converged.",
		},
		carry: {
			type: "object",
			required: ["first", "next"],
			additionalProperties: false,
			properties: { first: address("Read on the first iteration."), next: address("Read after each iteration.") },
			description: "`<loop>.carry`: `first` on the first iteration, `next` after each one.",
		},
		ledger: KEY.ledger,
	},
	noRetry: "a loop already repeats; raise its `max:`",
	section: false,
	leaf: false,
	modelTurns: false,
	read: readLoop,
	check: checkLoop,
	output: () => undefined,
	bodies: (node) => [{ body: node.body }],
	bound(node, { seq }) {
		const body = seq(node.body);
		const max = node.max?.value ?? 1;
		return { turns: max * body.turns, ms: max * body.ms, waits: body.waits };
	},
	width: (node, { widest }) => widest(node.body),
	timed: (node, _ms, seq) => ({ ...node, body: seq(node.body) }),
	plan(node, row) {
		row.what = `loop until ${node.until?.text ?? "?"}`;
		row.settings = [
			...blockFacts(node),
			...(node.giveUp ? [`give-up ${node.giveUp.text}`] : []),
			...(node.carry ? [`carry ${node.carry.first.text} then ${node.carry.next.text}`] : []),
			...(node.ledger ? ["ledger"] : []),
		];
	},
	mermaid: (node, m) =>
		m.subgraph([node.id.value, "loop", ...blockFacts(node), m.onFail].filter(Boolean), m.indent, (inner) => {
			const { first, last } = m.seq(node.body, inner);
			if (first && last && node.until)
				m.out.push(`${inner}${last} -.->|${m.label(`until ${node.until.text}`)}| ${first}`);
		}),
	graph: (node, g) =>
		g.block(`loop${g.facts}`, [node.until ? `until ${node.until.text}` : "", g.onFail], g.sequence(node.body)),
};

/** Reads a loop: `loop: <until>`, `max:`, `give-up:`, `carry:`, `ledger:`, `do:`. */
export function readLoop(n: NodeInput): LoopNode {
	const { ctx, keys, path } = n;
	const main = keys.get("loop") as Entry;
	const until = ctx.condition(main, `${path}.loop`);
	const node = { kind: "loop", ...base(n), body: [] } as unknown as LoopNode;
	if (until) node.until = until;
	const max = keys.get("max");
	if (!max)
		ctx.report("missing-key", main.keyRange, `${path}.max`, "a loop needs `max:`, the most iterations it may run");
	else {
		const m = ctx.int(max, `${path}.max`, 1);
		if (m) node.max = m;
	}
	const giveUp = keys.get("give-up");
	if (giveUp) {
		const g = ctx.condition(giveUp, `${path}.give-up`);
		if (g) node.giveUp = g;
	}
	const carry = keys.get("carry");
	if (carry) {
		const entries = ctx.entries(carry.value);
		const first = entries?.find((e) => e.key === "first");
		const next = entries?.find((e) => e.key === "next");
		if (entries && (!first || !next)) {
			// A mapping that lacks one side is a missing key, as combo reports it.
			const side = first ? "next" : "first";
			ctx.report(
				"missing-key",
				carry.keyRange,
				`${path}.carry.${side}`,
				`\`carry\` needs \`${side}:\`: \`{ first: <address>, next: <address> }\``,
			);
		} else if (!entries || !first || !next)
			ctx.report("key-type", carry.range, `${path}.carry`, "`carry` is `{ first: <address>, next: <address> }`");
		else {
			ctx.unknownKeys(entries, ["first", "next"], `${path}.carry`, "`carry`");
			const a = ctx.address(first, `${path}.carry.first`);
			const b = ctx.address(next, `${path}.carry.next`);
			if (a && b) node.carry = { first: a, next: b, range: carry.range };
		}
		// The fault is reported here; reads of `<loop>.carry` in the body must not report it again.
		if (!node.carry) n.refused.add(`${n.id.value}.carry`);
	}
	const ledger = ownId(ctx, keys.get("ledger"), n);
	if (ledger) node.ledger = ledger;
	node.body = readBody(n);
	return node;
}

/**
 * What a loop's body can tell of its passes, found once per loop: whether anything in it reads the loop
 * (`previous`, `carry`), and whether a body node's type can differ between passes (a `map-from` that reads
 * this loop or a loop inside it; every other node's type is its own or built from its body's).
 */
const shapes = new WeakMap<LoopNode, { reads: boolean; typed: boolean }>();

function shapeOf(node: LoopNode): { reads: boolean; typed: boolean } {
	const known = shapes.get(node);
	if (known) return known;
	const id = node.id.value;
	let reads = false;
	const seen = new Set<object>();
	const walk = (x: unknown): void => {
		if (reads || !x || typeof x !== "object" || seen.has(x)) return;
		seen.add(x);
		const o = x as { kind?: unknown; segments?: unknown };
		if (o.kind === "address" && Array.isArray(o.segments) && (o.segments[0] as Segment | undefined)?.name === id) {
			reads = true;
			return;
		}
		for (const v of Array.isArray(x) ? x : Object.values(x)) walk(v);
	};
	walk(node.body);
	const inner = allNodes(node.body);
	const loops = new Set([id, ...inner.filter((n) => n.kind === "loop").map((n) => n.id.value)]);
	const typed = inner.some((n) => n.kind === "map" && !!n.from && loops.has(n.from.expr.segments[0]?.name ?? ""));
	const shape = { reads, typed };
	shapes.set(node, shape);
	return shape;
}

/** `scope` plus the nodes of a checked sequence, as `checkSequence` leaves it. */
function after(scope: Scope, nodes: readonly FlowNode[], types: ReadonlyMap<string, Type>): Scope {
	let here = scope;
	for (const node of nodes) {
		here = here.with({
			id: node.id.value,
			type: types.get(node.id.value) as Type,
			handoff: node.kind === "agent",
			ledger: (node.kind === "loop" || node.kind === "map") && !!node.ledger,
		});
	}
	return here;
}

/**
 * A loop's output: whether it converged, why it stopped, how many iterations, and its last iteration.
 * The silent first pass is skipped when the body cannot tell it from the real one (it does not read the
 * loop, and no body type depends on the pass): the one pass is the real one and its types serve both.
 * Inside a silent pass only types matter, so the second pass is skipped when no type depends on it.
 * Either way each nested loop's body is walked about once per pass of the loop around it, not 2^depth.
 */
function checkLoop(w: Walk, node: LoopNode, scope: Scope): Type {
	const first = node.carry ? readAddress(w, node.carry.first, scope, `${node.path}.carry.first`) : undefined;
	const enclosing = { id: node.id.value, kind: "loop", ledger: !!node.ledger };
	const previous = new Map<string, Type>();
	const dryEnclosing: Enclosing = { ...enclosing, previous, ...(first ? { carry: first } : {}) };
	const dryScope = scope.inside(dryEnclosing);
	const { reads, typed } = shapeOf(node);
	let dry: SequenceOut;
	let body: SequenceOut | undefined;
	if (!reads && !typed) {
		body = checkSequence(w, node.body, dryScope);
		dry = body;
	} else {
		const silent = w.silent;
		w.silent = true;
		dry = checkSequence(w, node.body, dryScope);
		w.silent = silent;
	}
	let carry: Type | undefined = first;
	if (node.carry && first) {
		const next = readAddress(w, node.carry.next, dry.scope, `${node.path}.carry.next`);
		if (next) {
			const both = intersect(first, next);
			if (!both) {
				report(
					w,
					"carry-mismatch",
					node.carry.range,
					`${node.path}.carry`,
					`\`first\` (${typeToString(first)}) and \`next\` (${typeToString(next)}) share no field of the same name and type`,
				);
				carry = undefined;
			} else carry = both;
		}
	}
	// A carry refused here (or its `first` refused) was reported once; the body's reads of it say nothing more.
	if (node.carry && !carry) w.refused.add(`${node.id.value}.carry`);
	const realScope = scope.inside({ ...enclosing, previous: dry.types, ...(carry ? { carry } : {}) });
	if (body) {
		// The one pass stands for the real one (nothing in it reads the loop), so the scopes it left for the
		// language server get what the real pass offers its body: the body's types and the carry that met.
		for (const [id, t] of dry.types) previous.set(id, t);
		if (carry) dryEnclosing.carry = carry;
		else delete dryEnclosing.carry;
		bodyStart(w, node.id.value, dryScope);
	} else if (!(w.silent && !typed)) bodyStart(w, node.id.value, realScope);
	if (body || (w.silent && !typed)) body = { ...(body ?? dry), scope: after(realScope, node.body, dry.types) };
	else body = checkSequence(w, node.body, realScope);
	if (!w.silent) w.points.bodyEnd.set(node.id.value, body.scope);
	// A loop whose body was refused (empty) is one mistake: its conditions read a body that is not there.
	if (node.until && node.body.length) readCondition(w, node.until, body.scope, `${node.path}.loop`);
	if (node.giveUp && node.body.length) readCondition(w, node.giveUp, body.scope, `${node.path}.give-up`);
	const last = [...body.types].map(([id, t]) => field(id, entryType(t)));
	return objectOf([
		field("converged", BOOLEAN),
		field("stop", STOP_TYPE),
		field("iterations", NUMBER),
		...(last.length ? [field("last", objectOf(last))] : []),
	]);
}
