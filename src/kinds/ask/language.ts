/**
 * An ask: a question to the person running the flow, as a choice card (`options:` or `ask-from:`), a yes or
 * no (`confirm: true`) or free text, with a `default:` taken when nobody is there. Its output type follows
 * its form; its bound is its timeout, or it waits for a person.
 */
import { isScalar } from "yaml";
import type { AskNode } from "../../language/ast.ts";
import { type Entry, plain, seqItems } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { readReads } from "../../language/build/reads.ts";
import { describe } from "../../language/build/yaml-nodes.ts";
import { askType } from "../../language/check/node-types.ts";
import { readAddress } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import { QUESTION, sameType, type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, KEY, text } from "../../language/keys.ts";

/** The ask kind. */
export const askKind: KindModule<AskNode, "ask" | "ask-from"> = {
	kind: "ask",
	kindKeys: [
		{
			key: "ask",
			schema: text("The question put to the person running the flow."),
			rules: { not: { required: ["options", "confirm"] }, dependentRequired: { enough: ["options"] } },
		},
		{ key: "ask-from", schema: address("An address typed `Question`."), excludes: ["options", "confirm"] },
	],
	keys: {
		options: {
			type: "array",
			minItems: 2,
			maxItems: 4,
			uniqueItems: true,
			items: {
				anyOf: [
					{ type: "string", minLength: 1 },
					{
						type: "object",
						required: ["label"],
						additionalProperties: false,
						properties: { label: { type: "string", minLength: 1 }, description: { type: "string" } },
					},
				],
			},
			description: "2 to 4 labels, or `{ label, description }`; the card offers exactly these.",
		},
		confirm: { const: true, description: "A yes-or-no card; its output is `{ yes }`." },
		enough: text('The "that\'s enough" label of a choice card: answered false.'),
		default: {
			type: ["string", "boolean"],
			description: "The answer taken when nobody is there or the card times out.",
		},
		reads: KEY.reads,
		timeout: KEY.timeout,
		reuse: KEY["reuse-never"],
	},
	noRetry: "a person's answer is not retried",
	section: false,
	leaf: true,
	modelTurns: false,
	read: readAsk,
	check: checkAsk,
	output: (node) => askType(node),
	bodies: () => [],
	bound: (node) =>
		node.timeout ? { turns: 0, ms: node.timeout.value, waits: false } : { turns: 0, ms: 0, waits: true },
	width: () => 0,
	timed: (node) => node,
	plan(node, row, { flow }) {
		row.what = node.questionFrom
			? `ask from ${node.questionFrom.text}`
			: `ask ${JSON.stringify(node.question?.value ?? "")}`;
		row.reads = node.reads.map((r) => r.text);
		row.output = typeToString(flow.types.get(node.id.value) ?? { kind: "string" });
		if (node.timeout) row.timeout = { ms: node.timeout.value, source: "node" };
		row.settings = [
			...(node.confirm ? ["yes or no"] : []),
			...(node.options ? [`options ${node.options.map((o) => o.label.value).join(", ")}`] : []),
			...(node.enough ? [`enough ${JSON.stringify(node.enough.value)}`] : []),
			...(node.fallback ? [`default ${JSON.stringify(node.fallback.value)}`] : []),
		];
	},
	mermaid: (_node, m) => m.box(["ask"]),
	graph: (node, g) => g.leaf(`ask ${node.question?.value ?? node.questionFrom?.text ?? ""}`),
};

/** An `ask`: a choice card (`options:` or `ask-from:`), a yes/no (`confirm: true`) or free text. */
export function readAsk(n: NodeInput): AskNode {
	const { ctx, keys, path } = n;
	const main = keys.get(n.kindKey) as Entry;
	const node: AskNode = { kind: "ask", ...base(n), reads: readReads(ctx, keys.get("reads"), path) };
	if (n.kindKey === "ask") {
		const q = ctx.str(main, `${path}.ask`, "the question");
		if (q) node.question = q;
	} else {
		const a = ctx.address(main, `${path}.ask-from`);
		if (a) node.questionFrom = a;
	}
	const options = keys.get("options");
	const confirm = keys.get("confirm");
	const enough = keys.get("enough");
	if ((options || confirm) && n.kindKey === "ask-from") {
		// Each key an `ask-from` cannot take is its own mistake: combo reports both when both are written.
		for (const e of [options, confirm]) {
			if (e)
				ctx.report(
					"ask-form-conflict",
					e.keyRange,
					`${path}.${e.key}`,
					"`ask-from` brings its own options; it takes no `options` or `confirm`",
				);
		}
	} else if (options && confirm)
		ctx.report(
			"ask-form-conflict",
			confirm.keyRange,
			`${path}.confirm`,
			"`options` and `confirm` are two forms of card; write one",
		);
	else if (enough && !options && n.kindKey === "ask") {
		ctx.report(
			"ask-form-conflict",
			enough.keyRange,
			`${path}.enough`,
			"`enough` is a choice card's \"that's enough\" label; a yes/no or free-text card has none",
		);
	}
	if (options && !confirm && n.kindKey === "ask") {
		const read = readOptions(n, options);
		if (read) node.options = read;
	}
	if (confirm) {
		const c = ctx.bool(confirm, `${path}.confirm`);
		if (c?.value === true) node.confirm = c;
		else if (c)
			ctx.report("key-type", c.range, `${path}.confirm`, "write `confirm: true`, or leave it out for a free-text card");
	}
	if (enough) {
		const e = ctx.str(enough, `${path}.enough`, "a label");
		if (e) node.enough = e;
	}
	const timeout = keys.get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	// A card whose form was refused has no known answer shape: conditions reading it were reported here.
	if ((options && !node.options) || (confirm && !node.confirm)) n.refused.add(`${n.id.value}.output`);
	const dflt = keys.get("default");
	if (dflt) {
		const v = plain(dflt.value);
		const labels = node.options?.map((o) => o.label.value);
		const fits = node.confirm
			? typeof v === "boolean"
			: labels
				? typeof v === "string" && labels.includes(v)
				: typeof v === "string";
		if (!fits) {
			const what = node.confirm ? "true or false" : labels ? `one of the options (${labels.join(", ")})` : "a string";
			ctx.report(
				"ask-default-mismatch",
				dflt.range,
				`${path}.default`,
				`this card cannot answer ${describe(dflt.value)}; \`default\` must be ${what}`,
				labels ? { expected: labels } : {},
			);
		} else node.fallback = { value: v, range: dflt.range };
	}
	return node;
}

function readOptions(n: NodeInput, entry: Entry): AskNode["options"] {
	const { ctx, path } = n;
	const items = seqItems(entry.value);
	if (!items) {
		ctx.report("key-type", entry.range, `${path}.options`, "`options` is a list of labels or `{ label, description }`");
		return undefined;
	}
	if (items.length < 2 || items.length > 4) {
		ctx.report(
			"ask-options-count",
			entry.range,
			`${path}.options`,
			`a card offers 2 to 4 options, not ${items.length}`,
		);
		return undefined;
	}
	const out: NonNullable<AskNode["options"]> = [];
	for (const item of items) {
		const range = ctx.rangeOf(item, entry.range);
		let label: string | undefined;
		let description: string | undefined;
		if (isScalar(item) && typeof item.value === "string") label = item.value;
		else {
			const entries = ctx.entries(item);
			const l = entries?.find((e) => e.key === "label");
			const d = entries?.find((e) => e.key === "description");
			if (entries) ctx.unknownKeys(entries, ["label", "description"], `${path}.options`, "an option");
			if (l && isScalar(l.value) && typeof l.value.value === "string") label = l.value.value;
			if (d && isScalar(d.value) && typeof d.value.value === "string") description = d.value.value;
		}
		if (!label?.trim()) {
			ctx.report(
				"key-type",
				range,
				`${path}.options`,
				`an option is a label or \`{ label, description }\`, not ${describe(item)}`,
			);
			return undefined;
		}
		if (out.some((o) => o.label.value === label)) {
			ctx.report("ask-options-duplicate", range, `${path}.options`, `the label \`${label}\` is offered twice`);
			return undefined;
		}
		out.push({ label: { value: label, range }, ...(description ? { description } : {}) });
	}
	return out;
}

/** An ask reads its question (for `ask-from`, a `Question`) and its reads. */
function checkAsk(w: Walk, node: AskNode, scope: Scope): Type {
	if (node.questionFrom) {
		const t = readAddress(w, node.questionFrom, scope, `${node.path}.ask-from`);
		if (t && !sameType(t, QUESTION)) {
			report(
				w,
				"key-type",
				node.questionFrom.range,
				`${node.path}.ask-from`,
				`\`ask-from\` reads a \`Question\`; \`${node.questionFrom.text}\` is ${typeToString(t)}`,
				{
					hint: "Type the field `Question` in the earlier node's `output:`.",
				},
			);
		}
	}
	for (const read of node.reads) readAddress(w, read, scope, `${node.path}.reads`);
	return askType(node);
}
