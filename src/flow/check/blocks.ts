/**
 * Blocks: each body is checked in its own scope (nothing inside a sibling is visible; what leaves a block
 * is its output). A loop's body is walked twice, the first time silently, so `previous` and `carry` have
 * types on the first real pass (once, when the two passes cannot differ: see `checkLoop`).
 */
import { allNodes, type ChoiceNode, type FlowNode, type LoopNode, type MapNode, type ParallelNode } from "../ast.ts";
import type { Segment } from "../syntax/index.ts";
import {
	BOOLEAN,
	enumOf,
	field,
	intersect,
	listOf,
	NUMBER,
	objectOf,
	sameType,
	STRING,
	type Type,
	typeToString,
} from "../types/index.ts";
import { COPY_FIELDS, entryType, STOP_TYPE } from "./node-types.ts";
import { readAddress, readCondition } from "./reads.ts";
import type { Enclosing, Scope } from "./scope.ts";
import { checkSequence, type SequenceOut } from "./sequence.ts";
import { report, type Walk } from "./walk.ts";

/** A choice's output: which case ran, and the output of its last node when every case agrees on a type. */
export function checkChoice(w: Walk, node: ChoiceNode, scope: Scope): Type {
	const inner = scope.inside({ id: node.id.value, kind: "choice", ledger: false });
	bodyStart(w, node.id.value, inner);
	const lasts: (Type | undefined)[] = [];
	for (const [i, c] of node.cases.entries()) {
		readCondition(w, c.when, scope, `${node.path}.choice[${i + 1}].when`);
		lasts.push(checkSequence(w, c.body, inner).last);
	}
	if (node.otherwise.length) lasts.push(checkSequence(w, node.otherwise, inner).last);
	const names = node.cases.map((c, i) => c.name?.value ?? String(i + 1));
	const typed = lasts.filter((t): t is Type => !!t);
	const same = typed.length > 0 && typed.every((t) => sameType(t, typed[0])) ? typed[0] : undefined;
	return objectOf([field("case", enumOf([...names, "default"])), ...(same ? [field("output", same, true)] : [])]);
}

/** A parallel's output: one entry per branch, keyed by branch name. */
export function checkParallel(w: Walk, node: ParallelNode, scope: Scope): Type {
	const inner = scope.inside({ id: node.id.value, kind: "parallel", ledger: false });
	bodyStart(w, node.id.value, inner);
	const fields = node.branches.map((b) => {
		const last = checkSequence(w, b.body, inner).last;
		return field(b.name.value, entryType(last, node.copies?.value ? COPY_FIELDS : []));
	});
	return fields.length ? objectOf(fields) : objectOf([field("empty", BOOLEAN, true)]);
}

/** Records where a block's body starts, for the language server (the real pass only). */
function bodyStart(w: Walk, id: string, scope: Scope): void {
	if (!w.silent) w.points.bodyStart.set(id, scope);
}

/** A map's output: a list of entries in item order, each with its item. */
export function checkMap(w: Walk, node: MapNode, scope: Scope): Type {
	let item: Type | undefined = node.items ? STRING : undefined;
	if (node.from) {
		const t = readAddress(w, node.from, scope, `${node.path}.map-from`);
		if (t && t.kind !== "list") {
			report(
				w,
				"key-type",
				node.from.range,
				`${node.path}.map-from`,
				`\`map-from\` reads a list; \`${node.from.text}\` is ${typeToString(t)}`,
			);
		} else if (t?.kind === "list") item = t.of;
	}
	if (node.items && node.max && node.items.length > node.max.value) {
		report(
			w,
			"key-type",
			node.max.range,
			`${node.path}.max`,
			`the literal list has ${node.items.length} items, more than \`max: ${node.max.value}\``,
		);
	}
	// A list that did not read (refused by the builder, or not a list here) was reported once; reads of
	// `item` in the body have no type to be checked against, so they say nothing more.
	const itemRefused = !node.items && item === undefined;
	const inner = scope.inside({
		id: node.id.value,
		kind: "map",
		...(itemRefused ? { itemRefused } : { item: item ?? STRING }),
		ledger: !!node.ledger,
	});
	bodyStart(w, node.id.value, inner);
	const out = checkSequence(w, node.body, inner);
	if (!w.silent) w.points.bodyEnd.set(node.id.value, out.scope);
	const last = out.last;
	return listOf(entryType(last, [field("item", item ?? STRING), ...(node.copies?.value ? COPY_FIELDS : [])]));
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
export function checkLoop(w: Walk, node: LoopNode, scope: Scope): Type {
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
