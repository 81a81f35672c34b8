/**
 * A call: another flow run whole as one node (`flow: <name>` with `input: <address>`). Its output, bounds
 * and turns in flight are its callee's, which the checker checks whole.
 */
import { didYouMean, nearest } from "../../faults/index.ts";
import type { CallNode } from "../../language/ast.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { ZERO } from "../../language/check/bounds.ts";
import { readAddress } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import { sameType, TEXT, type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, text } from "../../language/keys.ts";

/** The flow kind (a call). */
export const flowKind: KindModule<CallNode, "flow"> = {
	kind: "flow",
	kindKeys: [{ key: "flow", schema: text("Another flow, by name, run whole as one node."), requires: ["input"] }],
	keys: { input: address("What the called flow receives: an address, never a literal.") },
	noRetry: "rerunning a flow would ask answered questions and commit again; retry inside the callee",
	section: false,
	leaf: false,
	modelTurns: false,
	read: readCall,
	check: checkCall,
	output: () => undefined,
	bodies: () => [],
	bound: (node, { callee }) => callee(node) ?? ZERO,
	width: (node, { callee }) => callee(node)?.inFlight ?? 1,
	timed: (node) => node,
	plan(node, row, c) {
		const callee = c.flow.callees.get(node.id.value);
		row.what = `flow ${node.callee?.value ?? ""}${callee ? ` (${c.display(callee.file)})` : ""}`;
		if (node.input) row.settings = [`input ${node.input.text}`];
		const type = c.flow.types.get(node.id.value);
		if (type && type.kind !== "text") row.output = typeToString(type);
	},
	mermaid(node, m) {
		const callee = m.flow.callees.get(node.id.value);
		return m.box([`flow ${node.callee?.value ?? callee?.name.value ?? ""}`, `input: ${node.input?.text ?? ""}`]);
	},
	graph(node, g) {
		const callee = g.flow.callees.get(node.id.value);
		const body = callee ? g.sequence(callee.nodes, g.address, callee) : g.nothing();
		return g.block(`flow ${node.callee?.value ?? ""}`, [node.input ? `input: ${node.input.text}` : "", g.onFail], body);
	},
};

/** `flow: <name>` with `input: <address>`. */
export function readCall(n: NodeInput): CallNode {
	const { ctx, keys, path } = n;
	const callee = ctx.str(keys.get("flow") as Entry, `${path}.flow`, "a flow's name");
	const node = { kind: "flow", ...base(n) } as CallNode;
	if (callee) node.callee = callee;
	const input = keys.get("input");
	if (!input)
		ctx.report(
			"missing-key",
			(keys.get("flow") as Entry).keyRange,
			`${path}.input`,
			"a `flow` node needs `input:`, an address (use `input` to pass this flow's input on)",
		);
	else {
		const a = ctx.address(input, `${path}.input`);
		if (a) node.input = a;
	}
	return node;
}

/** A call: the callee exists, checks, does not lead back here, and takes the input's type. */
function checkCall(w: Walk, node: CallNode, scope: Scope): Type {
	const inputType = node.input ? readAddress(w, node.input, scope, `${node.path}.input`) : undefined;
	if (!node.callee || !w.calls) return TEXT;
	const name = node.callee.value;
	const found = w.calls.check(name, w.stack);
	const at = node.callee.range;
	if ("missing" in found) {
		const near = nearest(name, found.missing);
		report(w, "unknown-flow", at, `${node.path}.flow`, `no flow named \`${name}\`.${didYouMean(near)}`, {
			expected: near ? [near] : [],
		});
		return unresolved(w, node);
	}
	if ("cycle" in found) {
		const ring = found.cycle.join(" → ");
		report(w, "call-cycle", at, `${node.path}.flow`, `calling \`${name}\` leads back here: ${ring}`, {
			cycle: found.cycle,
		});
		return unresolved(w, node);
	}
	if ("faults" in found) {
		const first = found.faults[0];
		report(
			w,
			"broken-flow",
			at,
			`${node.path}.flow`,
			`the flow \`${name}\` (${found.file}) does not check: ${first ? `${first.line}:${first.column}: ${first.code}: ${first.message}` : "it was refused"}`,
		);
		return unresolved(w, node);
	}
	const callee = found.value;
	w.callees.set(node.id.value, callee);
	const wanted = callee.input.value;
	if (inputType && wanted.kind !== "string" && !sameType(inputType, wanted)) {
		report(
			w,
			"flow-input-mismatch",
			(node.input ?? node).range,
			`${node.path}.input`,
			`\`${name}\` takes ${typeToString(wanted)}; this passes ${typeToString(inputType)}`,
		);
	}
	const last = callee.nodes[callee.nodes.length - 1];
	return (last && callee.types.get(last.id.value)) ?? TEXT;
}

/** A call whose callee cannot be checked has no known output: reads into it were reported at the call. */
function unresolved(w: Walk, node: CallNode): Type {
	w.refused.add(`${node.id.value}.output`);
	return TEXT;
}
