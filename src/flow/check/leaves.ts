/**
 * Checks, commits, asks, calls and swarms: each reads what it names against the scope, and a call checks
 * its callee whole (cycles found from the files, a refused callee reported once, at the call).
 */
import type { AgentDef } from "../../agents/index.ts";
import { didYouMean, nearest } from "../../faults/index.ts";
import type { AskNode, CallNode, CheckNode, CommitNode, SwarmNode } from "../ast.ts";
import { QUESTION, sameType, type Type, TEXT, typeToString } from "../types/index.ts";
import { CHECK_TYPE, COMMIT_TYPE, SWARM_TYPE, askType } from "./node-types.ts";
import { lookup } from "./agent.ts";
import { readAddress, readCondition } from "./reads.ts";
import type { Scope } from "./scope.ts";
import { report, type Walk } from "./walk.ts";

/** A check's output is `{ passed, report }`; its script is looked at by the run stage. */
export function checkCheck(_w: Walk, _node: CheckNode, _scope: Scope): Type {
	return CHECK_TYPE;
}

/** A commit's message is an earlier node's text or a string field of its output. */
export function checkCommit(w: Walk, node: CommitNode, scope: Scope): Type {
	if (node.message) {
		const root = node.message.root;
		if (root === "input" || root === "item" || root === "diff") {
			report(
				w,
				"key-type",
				node.message.range,
				`${node.path}.commit`,
				`a commit message comes from a node that wrote it, not from \`${root}\``,
			);
		} else {
			const t = readAddress(w, node.message, scope, `${node.path}.commit`);
			if (t && t.kind !== "text" && t.kind !== "string") {
				report(
					w,
					"key-type",
					node.message.range,
					`${node.path}.commit`,
					`a commit message is text; \`${node.message.text}\` is ${typeToString(t)}`,
				);
			}
		}
	}
	return COMMIT_TYPE;
}

/** An ask reads its question (for `ask-from`, a `Question`) and its reads. */
export function checkAsk(w: Walk, node: AskNode, scope: Scope): Type {
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

/** A call: the callee exists, checks, does not lead back here, and takes the input's type. */
export function checkCall(w: Walk, node: CallNode, scope: Scope): Type {
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
		report(w, "call-cycle", at, `${node.path}.flow`, `calling \`${name}\` leads back here: ${found.cycle.join(" → ")}`);
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

/** A swarm: its members exist, its claims are a list of strings, and `until` reads its own output too. */
export function checkSwarm(w: Walk, node: SwarmNode, scope: Scope): Type {
	const members: { agent: AgentDef; count: number }[] = [];
	w.members.set(node.id.value, members);
	for (const m of node.members) {
		const agent = lookup(w, m.agent.value, m.agent.range, `${node.path}.swarm`);
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
