/**
 * A map: its body once per item, of a literal list (`map:`) or of a list an address reads (`map-from:`,
 * bounded by `max:`), `concurrency` at a time. Its worst case is its items times the body (time by waves of
 * `concurrency`); in flight, `concurrency` bodies (at most its items).
 */
import { isScalar, type Node } from "yaml";
import type { Located, MapNode } from "../../language/ast.ts";
import { blockOptions, ownId, readBody } from "../../language/build/blocks.ts";
import { type Entry, seqItems } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { COPY_FIELDS, entryType } from "../../language/check/node-types.ts";
import { readAddress } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { checkSequence } from "../../language/check/sequence.ts";
import { bodyStart, report, type Walk } from "../../language/check/walk.ts";
import { blockFacts, plural } from "../../language/render/phrases.ts";
import { field, listOf, STRING, type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, KEY, whole } from "../../language/keys.ts";
import type { Range } from "../../text/index.ts";
import { joinText } from "../labels.ts";

/** The map kind. */
export const mapKind: KindModule<MapNode, "map" | "map-from"> = {
	kind: "map",
	kindKeys: [
		{
			key: "map",
			schema: {
				type: "array",
				minItems: 1,
				items: { type: "string" },
				description: "A literal list of strings; the body runs once per item.",
			},
			requires: ["do"],
			// A literal `map:` runs exactly its listed items, so a bound beside it says nothing: combo refuses it too.
			refuses: { max: "`map-from` nodes (a literal `map:` runs exactly its items)" },
		},
		{
			key: "map-from",
			schema: address("An address of a list; the body runs once per item."),
			requires: ["max", "do"],
		},
	],
	keys: {
		do: KEY.do,
		max: KEY.max,
		concurrency: whole(1, "How many items run at once. Default 1."),
		copies: KEY.copies,
		"fail-fast": KEY["fail-fast"],
		ledger: KEY.ledger,
		join: KEY.join,
	},
	noRetry: "retry the nodes inside the body",
	section: false,
	leaf: false,
	modelTurns: false,
	read: readMap,
	check: checkMap,
	output: () => undefined,
	bodies: (node) => [{ body: node.body }],
	bound(node, { seq }) {
		const body = seq(node.body);
		const items = node.items?.length ?? node.max?.value ?? 1;
		const waves = Math.ceil(items / (node.concurrency?.value ?? 1));
		return { turns: items * body.turns, ms: waves * body.ms, waits: body.waits };
	},
	width(node, { widest }) {
		const items = node.items?.length ?? node.max?.value ?? 1;
		return Math.min(items, node.concurrency?.value ?? 1) * widest(node.body);
	},
	timed: (node, _ms, seq) => ({ ...node, body: seq(node.body) }),
	plan(node, row) {
		row.what = node.from ? `map over ${node.from.text}` : `map over ${plural(node.items?.length ?? 0, "item")}`;
		row.settings = [
			...blockFacts(node),
			...(node.failFast?.value ? ["fail-fast"] : []),
			...(node.join ? [`join ${joinText(node.join.value)}`] : []),
			...(node.ledger ? ["ledger"] : []),
		];
	},
	mermaid: (node, m) =>
		m.subgraph([node.id.value, "map", ...blockFacts(node), m.onFail].filter(Boolean), m.indent, (inner) =>
			m.seq(node.body, inner),
		),
	graph: (node, g) =>
		g.block(
			`map${g.facts}`,
			[node.from ? `over ${node.from.text}` : `over ${(node.items ?? []).map((i) => i.value).join(", ")}`, g.onFail],
			g.sequence(node.body),
		),
};

/**
 * A literal list's items, each a string where it stands; undefined unless there is at least one and all are
 * strings. A loop rather than callbacks: a literal list may hold thousands of items, and a callback made per
 * call is compiled again after every full collection.
 */
function literalItems(
	ctx: NodeInput["ctx"],
	items: readonly Node[] | undefined,
	at: Range,
): Located<string>[] | undefined {
	if (!items || items.length === 0) return undefined;
	const strings: Located<string>[] = [];
	for (const i of items) {
		if (!isScalar(i) || typeof i.value !== "string") return undefined;
		strings.push({ value: i.value, range: ctx.rangeOf(i, at) });
	}
	return strings;
}

/** Reads a map: `map: [strings]` or `map-from: address`, with `do:` and its bounds. */
export function readMap(n: NodeInput): MapNode {
	const { ctx, keys, path } = n;
	const main = keys.get(n.kindKey) as Entry;
	const node: MapNode = { kind: "map", ...base(n), body: [], ...blockOptions(ctx, keys, path) };
	if (n.kindKey === "map") {
		const strings = literalItems(ctx, seqItems(main.value), main.range);
		if (!strings) {
			ctx.report(
				"key-type",
				main.range,
				`${path}.map`,
				"a literal `map:` is a non-empty list of strings; anything typed comes through `map-from:`",
			);
		} else node.items = strings;
	} else {
		const from = ctx.address(main, `${path}.map-from`);
		if (from) node.from = from;
		if (!keys.has("max"))
			ctx.report("missing-key", main.keyRange, `${path}.max`, "`map-from` needs `max:`, the most items it will run");
	}
	const max = n.kindKey === "map" ? undefined : keys.get("max");
	if (max) {
		const m = ctx.int(max, `${path}.max`, 1);
		if (m) node.max = m;
	}
	const concurrency = keys.get("concurrency");
	if (concurrency) {
		const c = ctx.int(concurrency, `${path}.concurrency`, 1);
		if (c) node.concurrency = c;
	}
	const ledger = ownId(ctx, keys.get("ledger"), n);
	if (ledger) node.ledger = ledger;
	node.body = readBody(n);
	return node;
}

/** A map's output: a list of entries in item order, each with its item. */
function checkMap(w: Walk, node: MapNode, scope: Scope): Type {
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
