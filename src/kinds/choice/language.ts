/**
 * A choice: ordered cases `{ when, do, name? }`, the first that holds runs, `default:` otherwise. Its worst
 * case is its worst case; in flight, its widest case.
 */
import { allNodes, type ChoiceCase, type ChoiceNode } from "../../language/ast.ts";
import { type Entry, seqItems } from "../../language/build/context.ts";
import { base, type NodeInput, readSequence } from "../../language/build/node.ts";
import { ID_PATTERN } from "../../language/build/words.ts";
import { describe } from "../../language/build/yaml-nodes.ts";
import { worst, ZERO } from "../../language/check/bounds.ts";
import { readCondition } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { checkSequence } from "../../language/check/sequence.ts";
import { bodyStart, type Walk } from "../../language/check/walk.ts";
import { enumOf, field, objectOf, sameType, type Type } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { ref } from "../../language/keys.ts";

/** The choice kind. */
export const choiceKind: KindModule<ChoiceNode, "choice"> = {
	kind: "choice",
	kindKeys: [
		{
			key: "choice",
			schema: {
				type: "array",
				minItems: 1,
				items: ref("case"),
				description: "Ordered cases `{ when, do, name? }`: the first that holds runs.",
			},
			requires: ["default"],
		},
	],
	keys: {
		default: { type: "array", items: ref("node"), description: "The nodes run when no case holds; `[]` for nothing." },
	},
	noRetry: "retry the nodes inside the case",
	section: false,
	leaf: false,
	modelTurns: false,
	read: readChoice,
	check: checkChoice,
	output: () => undefined,
	bodies: (node) => [
		...node.cases.map((c, i) => ({ label: `case ${c.name?.value ?? i + 1} · when ${c.when.text}`, body: c.body })),
		{ label: "default", body: node.otherwise },
	],
	bound: (node, { seq }) => [...node.cases.map((c) => seq(c.body)), seq(node.otherwise)].reduce(worst, ZERO),
	width: (node, { widest }) => Math.max(widest(node.otherwise), ...node.cases.map((c) => widest(c.body))),
	timed: (node, _ms, seq) => ({
		...node,
		cases: node.cases.map((c) => ({ ...c, body: seq(c.body) })),
		otherwise: seq(node.otherwise),
	}),
	plan(_node, row) {
		row.what = "choice";
	},
	mermaid(node, m) {
		const id = node.id.value;
		return m.subgraph([id, "choice", m.onFail].filter(Boolean), m.indent, (inner) => {
			const decision = m.next();
			m.out.push(`${inner}${decision}{${m.label(id)}}`);
			node.cases.forEach((c, i) => {
				const { first } = m.seq(c.body, inner);
				const when = c.name ? `${c.name.value}: ${c.when.text}` : c.when.text;
				if (first) m.out.push(`${inner}${decision} -->|${m.label(when)}| ${first}`);
				else
					m.out.push(`${inner}${decision} -->|${m.label(when)}| ${m.next()}([${m.label(`case ${i + 1}: nothing`)}])`);
			});
			const { first } = m.seq(node.otherwise, inner);
			m.out.push(`${inner}${decision} -->|${m.label("default")}| ${first ?? `${m.next()}([${m.label("nothing")}])`}`);
		});
	},
	graph(node, g) {
		const cases = node.cases.map((c, i) =>
			g.branch(`${c.name?.value ?? String(i + 1)}: when ${c.when.text}`, g.sequence(c.body)),
		);
		return g.block("choice", [g.onFail], g.side([...cases, g.branch("default", g.sequence(node.otherwise))]));
	},
};

/** Reads a choice: `choice: [{ when, do, name? }]` and a required `default:`. */
export function readChoice(n: NodeInput): ChoiceNode {
	const { ctx, keys, path } = n;
	const main = keys.get("choice") as Entry;
	const items = seqItems(main.value);
	const cases: ChoiceCase[] = [];
	if (!items || items.length === 0)
		ctx.report("key-type", main.range, `${path}.choice`, "`choice` is a non-empty list of cases `{ when, do }`");
	for (const [i, item] of (items ?? []).entries()) {
		const range = ctx.rangeOf(item, main.range);
		const entries = ctx.entries(item);
		const casePath = `${path}.choice[${i + 1}]`;
		if (!entries) {
			ctx.report("key-type", range, casePath, `a case is \`{ when, do }\`, not ${describe(item)}`);
			continue;
		}
		ctx.unknownKeys(entries, ["when", "do", "name"], casePath, "a case");
		const get = (k: string) => entries.find((e) => e.key === k);
		const when = get("when");
		const body = get("do");
		if (!when) ctx.report("missing-key", range, `${casePath}.when`, "a case needs `when:`");
		if (!body) ctx.report("missing-key", range, `${casePath}.do`, "a case needs `do:` (at least one node)");
		const condition = when ? ctx.condition(when, `${casePath}.when`) : undefined;
		const nodes = body ? readSequence(ctx, body.value, body.range, path, n.refused, "a case's `do`") : [];
		const nameEntry = get("name");
		const name = nameEntry ? ctx.str(nameEntry, `${casePath}.name`, "a case name") : undefined;
		if (name && !ID_PATTERN.test(name.value))
			ctx.report(
				"key-type",
				name.range,
				`${casePath}.name`,
				`a case name is a name like \`approved\`, not \`${name.value}\``,
			);
		if (condition)
			cases.push({ when: condition, body: nodes, range, ...(name && ID_PATTERN.test(name.value) ? { name } : {}) });
		// A case whose `when:` does not read is dropped with one fault; its nodes, sections and reads of them
		// are not mistakes of their own (a loop's broken condition gives one fault too).
		else for (const node of allNodes(nodes)) n.refused.add(node.id.value);
	}
	const names = cases.map((c) => c.name?.value).filter((v): v is string => !!v);
	for (const c of cases) {
		if (c.name && (c.name.value === "default" || names.indexOf(c.name.value) !== names.lastIndexOf(c.name.value))) {
			ctx.report(
				"key-type",
				c.name.range,
				`${path}.choice`,
				`the case name \`${c.name.value}\` is ${c.name.value === "default" ? "reserved for the default" : "used twice"}`,
			);
			delete c.name;
		}
	}
	const dflt = keys.get("default");
	if (!dflt)
		ctx.report(
			"missing-key",
			main.keyRange,
			`${path}.default`,
			"a choice needs `default:` (write `default: []` for nothing)",
		);
	const otherwise =
		dflt && seqItems(dflt.value)?.length !== 0
			? readSequence(ctx, dflt.value, dflt.range, path, n.refused, "`default`")
			: [];
	return { kind: "choice", ...base(n), cases, otherwise };
}

/** A choice's output: which case ran, and the output of its last node when every case agrees on a type. */
function checkChoice(w: Walk, node: ChoiceNode, scope: Scope): Type {
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
