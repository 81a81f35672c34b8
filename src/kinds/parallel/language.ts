/**
 * A parallel: named branches started at once (`copies`, `fail-fast`, `join`). Its turns are its branches'
 * sum, its time the longest branch; in flight, every branch at once.
 */
import type { ParallelNode } from "../../language/ast.ts";
import { blockOptions } from "../../language/build/blocks.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput, readSequence } from "../../language/build/node.ts";
import { ID_PATTERN } from "../../language/build/words.ts";
import { COPY_FIELDS, entryType } from "../../language/check/node-types.ts";
import type { Scope } from "../../language/check/scope.ts";
import { checkSequence } from "../../language/check/sequence.ts";
import { bodyStart, type Walk } from "../../language/check/walk.ts";
import { blockFacts } from "../../language/render/phrases.ts";
import { BOOLEAN, field, objectOf, type Type } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { KEY, ref } from "../../language/keys.ts";
import { joinText } from "../labels.ts";

/** The parallel kind. */
export const parallelKind: KindModule<ParallelNode, "parallel"> = {
	kind: "parallel",
	kindKeys: [
		{
			key: "parallel",
			schema: {
				type: "object",
				minProperties: 2,
				propertyNames: { pattern: ID_PATTERN.source },
				additionalProperties: ref("sequence"),
				description: "Named branches started at once.",
			},
		},
	],
	keys: { copies: KEY.copies, "fail-fast": KEY["fail-fast"], join: KEY.join },
	noRetry: "retry the nodes inside the branches",
	section: false,
	leaf: false,
	modelTurns: false,
	read: readParallel,
	check: checkParallel,
	output: () => undefined,
	bodies: (node) => node.branches.map((b) => ({ label: `branch ${b.name.value}`, body: b.body })),
	bound(node, { seq }) {
		const branches = node.branches.map((b) => seq(b.body));
		return {
			turns: branches.reduce((a, b) => a + b.turns, 0),
			ms: Math.max(0, ...branches.map((b) => b.ms)),
			waits: branches.some((b) => b.waits),
		};
	},
	width: (node, { widest }) => node.branches.reduce((a, b) => a + widest(b.body), 0),
	timed: (node, _ms, seq) => ({ ...node, branches: node.branches.map((b) => ({ ...b, body: seq(b.body) })) }),
	plan(node, row) {
		row.what = "parallel";
		row.settings = [
			...blockFacts(node),
			...(node.failFast?.value ? ["fail-fast"] : []),
			...(node.join ? [`join ${joinText(node.join.value)}`] : []),
		];
	},
	mermaid: (node, m) =>
		m.subgraph([node.id.value, "parallel", ...blockFacts(node), m.onFail].filter(Boolean), m.indent, (inner) => {
			for (const b of node.branches) m.subgraph([b.name.value], inner, (deeper) => m.seq(b.body, deeper));
		}),
	graph: (node, g) =>
		g.block(
			`parallel${g.facts}`,
			[g.onFail],
			g.side(node.branches.map((b) => g.branch(b.name.value, g.sequence(b.body, `${g.address}/${b.name.value}`)))),
		),
};

/** Reads a parallel: `parallel: { branch: [nodes], ... }`, at least two branches. */
export function readParallel(n: NodeInput): ParallelNode {
	const { ctx, keys, path } = n;
	const main = keys.get("parallel") as Entry;
	const entries = ctx.entries(main.value);
	const branches: ParallelNode["branches"] = [];
	if (!entries || entries.length < 2)
		ctx.report(
			"key-type",
			main.range,
			`${path}.parallel`,
			"`parallel` maps at least two branch names to lists of nodes",
		);
	for (const e of entries ?? []) {
		if (!ID_PATTERN.test(e.key))
			ctx.report(
				"key-type",
				e.keyRange,
				`${path}.parallel`,
				`a branch name is a name like \`tests\`, not \`${e.key}\``,
			);
		branches.push({
			name: { value: e.key, range: e.keyRange },
			body: readSequence(ctx, e.value, e.range, path, n.refused, `the branch \`${e.key}\``),
		});
	}
	return { kind: "parallel", ...base(n), branches, ...blockOptions(ctx, keys, path) };
}

/** A parallel's output: one entry per branch, keyed by branch name. */
function checkParallel(w: Walk, node: ParallelNode, scope: Scope): Type {
	const inner = scope.inside({ id: node.id.value, kind: "parallel", ledger: false });
	bodyStart(w, node.id.value, inner);
	const fields = node.branches.map((b) => {
		const last = checkSequence(w, b.body, inner).last;
		return field(b.name.value, entryType(last, node.copies?.value ? COPY_FIELDS : []));
	});
	return fields.length ? objectOf(fields) : objectOf([field("empty", BOOLEAN, true)]);
}
