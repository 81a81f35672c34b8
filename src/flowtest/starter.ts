/**
 * A starter script for a checked flow: one entry per agent node, each with an answer the node accepts (a
 * `submit` call with a sample of its type, the `{ value }` wrapper for a list or a scalar, a `verdict` for
 * a review turn, a `say` otherwise), so the flow runs end to end on the scripted model before a person
 * edits a single line. With `test: true`, a whole flow test around it (input, script, answers, expect).
 *
 *   scout: { output: { severity: high | low } }   →   scout:
 *                                                        - call: submit
 *                                                          args: { severity: high }
 */
import { Document } from "yaml";
import { childrenOf, type FlowNode } from "../language/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import { sampleValue, typeToString, type Value } from "../language/types/index.ts";

/** Options of {@link starterScript}. */
export interface StarterOptions {
	/** A flow test (`<flow>.test.yaml`) rather than a bare script. Default false. */
	test?: boolean;
}

/** The starter script (or flow test) as YAML text. */
export function starterScript(flow: CheckedFlow, options: StarterOptions = {}): string {
	const entries: string[] = [];
	const asks: { id: string; answer: Value; note: string }[] = [];
	const walk = (f: CheckedFlow, nodes: readonly FlowNode[], prefix: string) => {
		for (const node of nodes) {
			if (node.kind === "agent") entries.push(agentEntry(f, node, prefix));
			else if (node.kind === "swarm")
				entries.push(
					entry(
						prefix ? `${prefix}${node.path}` : node.id.value,
						["- say: ok"],
						"a swarm: every member's turn plays these steps; key `<swarm>/<agent>[i]#round` for one member",
					),
				);
			else if (node.kind === "ask") asks.push(askAnswer(node));
			else if (node.kind === "flow") {
				const callee = f.callees.get(node.id.value);
				if (callee) walk(callee, callee.nodes, `${prefix}${node.path}/`);
			} else walk(f, childrenOf(node), prefix); // any block's inner nodes, by the AST's one exhaustive switch
		}
	};
	walk(flow, flow.nodes, "");
	const head = [
		`# A starter script for \`${flow.name.value}\`, written by \`pi-flows script\`: one entry per agent node, each`,
		"# with an answer the node accepts. Edit the answers; see docs/scripted-model.md for every step key.",
	];
	const askNote = asks.length
		? [
				"# Questions are not scripted here: a flow test answers them under `answers:` (in a run, the person does).",
				...asks.map((a) => `#   ${a.id}: ${a.note}`),
			]
		: [];
	if (!options.test)
		return [...head, ...askNote, "turns:", ...entries.map((e) => indent(e, 2))].join("\n").concat("\n");
	const input =
		flow.input.value.kind === "string" || flow.input.value.kind === "text" ? "the task" : sampleValue(flow.input.value);
	return [
		`# A flow test for \`${flow.name.value}\`, written by \`pi-flows script --test\`. Run it with \`pi-flows test\`.`,
		`flow: ${flow.name.value}`,
		`input: ${flow_(input)}`,
		"script:",
		"  turns:",
		...entries.map((e) => indent(e, 4)),
		...(asks.length ? [`answers: ${flow_(Object.fromEntries(asks.map((a) => [a.id, a.answer])))}`] : []),
		"expect:",
		"  ok: true",
	]
		.join("\n")
		.concat("\n");
}

function agentEntry(flow: CheckedFlow, node: Extract<FlowNode, { kind: "agent" }>, prefix: string): string {
	// Ids are unique in a flow, and the shortest key a script takes; a callee's nodes keep their address.
	const key = prefix ? `${prefix}${node.path}` : node.id.value;
	const typed = flow.answerTypes.get(node.id.value) ?? node.output?.value;
	if (typed) {
		const sample = sampleValue(typed);
		// Only objects travel as themselves; every other type is wrapped, as the submit schema says.
		const args = typed.kind === "object" ? sample : { value: sample };
		return entry(
			key,
			["- call: submit", `  args: ${flow_(args)}`],
			`submit a ${typeToString(typed)}${typed.kind === "object" ? "" : ", wrapped as { value: ... }"}`,
		);
	}
	if (node.verdict) {
		return entry(
			key,
			["- call: verdict", "  args: { approved: true }"],
			"verdict: approved, remarks?, raised: [text], resolved: [{ id: o1, how: addressed | withdrawn, reason? }]",
		);
	}
	return entry(key, [`- say: "${node.id.value} done: {{task|lines:1}}"`]);
}

function askAnswer(node: Extract<FlowNode, { kind: "ask" }>): { id: string; answer: Value; note: string } {
	const id = node.id.value;
	if (node.options?.length) {
		const labels = node.options.map((o) => o.label.value);
		return { id, answer: labels[0], note: `one of ${labels.join(", ")}${node.enough ? ", or enough" : ""}` };
	}
	if (node.confirm?.value) return { id, answer: true, note: "true or false" };
	return { id, answer: "an answer", note: "the person's words" };
}

function entry(key: string, steps: string[], note?: string): string {
	const quoted = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key);
	return [`${quoted}:${note ? `  # ${note}` : ""}`, ...steps.map((s) => `  ${s}`)].join("\n");
}

/** A value in YAML's flow style, on one line. */
function flow_(value: unknown): string {
	return new Document(value).toString({ collectionStyle: "flow", lineWidth: 0 }).trim();
}

function indent(text: string, n: number): string {
	return text
		.split("\n")
		.map((l) => " ".repeat(n) + l)
		.join("\n");
}
