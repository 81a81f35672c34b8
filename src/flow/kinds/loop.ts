/**
 * A loop: its body repeats until its condition holds, at most `max:` times (`give-up:`, `carry:`, `ledger:`).
 * Its worst case is `max` bodies; in flight, its body's widest part.
 */
import type { LoopNode } from "../ast.ts";
import { ownId, readBody } from "../build/blocks.ts";
import type { Entry } from "../build/context.ts";
import { base, type NodeInput } from "../build/node.ts";
import { checkLoop } from "../check/blocks.ts";
import { blockFacts } from "../render/index.ts";
import type { KindModule } from "./kind.ts";
import { address, KEY, ref } from "./keys.ts";

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
	read: readLoop,
	check: (w, node, scope) => checkLoop(w, node, scope),
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
