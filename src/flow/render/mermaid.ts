/**
 * The flow's shape as a Mermaid flowchart: leaves are boxes (`id<br/>what runs`), blocks are subgraphs
 * titled with their id, kind and bounds, a sequence is a chain of arrows, a choice's cases leave a decision
 * with their conditions on the arrows, and a loop's `until` is a dotted arrow back to the body's start.
 * Structure only: reads are not drawn. Pure text out; Mermaid itself is never a dependency.
 *
 *   input:  explore (look: scout; answer: synthesiser)
 *   output: flowchart TD / n1["look<br/>scout"] / n2["answer<br/>synthesiser"] / n1 --> n2
 *
 * Ids are numbered (`n1`, `n2`, ...) because a node id such as `end` or `graph` is a Mermaid keyword.
 */
import type { FlowNode } from "../ast.ts";
import type { CheckedFlow } from "../check/index.ts";
import { blockFacts } from "./phrases.ts";

/** Characters that would end a label or read as markup, as Mermaid's entity codes (`#38;` for `&`). */
const ENTITIES: Record<string, string> = {
	"#": "#35;",
	"&": "#38;",
	'"': "#34;",
	"<": "#60;",
	">": "#62;",
	"|": "#124;",
};

/** Label text with Mermaid's entity codes; `<br/>` is added by the caller between escaped parts. */
export function escapeLabel(text: string): string {
	return text.replace(/[#&"<>|]/g, (c) => ENTITIES[c]);
}

/** The Mermaid flowchart of a checked flow. */
export function mermaidOf(flow: CheckedFlow): string {
	const out: string[] = ["flowchart TD"];
	let count = 0;
	const next = () => `n${++count}`;
	const label = (...parts: string[]) => `"${parts.filter(Boolean).map(escapeLabel).join("<br/>")}"`;

	/** Draws a sequence at `indent`; gives the first and last ids, so the caller can link around it. */
	const seq = (nodes: readonly FlowNode[], indent: string): { first?: string; last?: string } => {
		const ids = nodes.map((n) => one(n, indent));
		for (let i = 1; i < ids.length; i++) out.push(`${indent}${ids[i - 1]} --> ${ids[i]}`);
		return { first: ids[0], last: ids[ids.length - 1] };
	};

	const subgraph = (title: string[], indent: string, body: (inner: string, id: string) => void): string => {
		const id = next();
		out.push(`${indent}subgraph ${id}[${label(title.join(" · "))}]`);
		body(`${indent}  `, id);
		out.push(`${indent}end`);
		return id;
	};

	const onFail = (node: FlowNode) => (node.onFail ? "on-fail: continue" : "");

	const one = (node: FlowNode, indent: string): string => {
		const id = node.id.value;
		switch (node.kind) {
			case "choice":
				return subgraph([id, "choice", onFail(node)].filter(Boolean), indent, (inner) => {
					const decision = next();
					out.push(`${inner}${decision}{${label(id)}}`);
					node.cases.forEach((c, i) => {
						const { first } = seq(c.body, inner);
						const when = c.name ? `${c.name.value}: ${c.when.text}` : c.when.text;
						if (first) out.push(`${inner}${decision} -->|${label(when)}| ${first}`);
						else out.push(`${inner}${decision} -->|${label(when)}| ${next()}([${label(`case ${i + 1}: nothing`)}])`);
					});
					const { first } = seq(node.otherwise, inner);
					out.push(`${inner}${decision} -->|${label("default")}| ${first ?? `${next()}([${label("nothing")}])`}`);
				});
			case "parallel":
				return subgraph([id, "parallel", ...blockFacts(node), onFail(node)].filter(Boolean), indent, (inner) => {
					for (const b of node.branches) subgraph([b.name.value], inner, (deeper) => seq(b.body, deeper));
				});
			case "map":
				return subgraph([id, "map", ...blockFacts(node), onFail(node)].filter(Boolean), indent, (inner) =>
					seq(node.body, inner),
				);
			case "loop":
				return subgraph([id, "loop", ...blockFacts(node), onFail(node)].filter(Boolean), indent, (inner) => {
					const { first, last } = seq(node.body, inner);
					if (first && last && node.until)
						out.push(`${inner}${last} -.->|${label(`until ${node.until.text}`)}| ${first}`);
				});
			case "swarm":
				return subgraph([id, "swarm", ...blockFacts(node), onFail(node)].filter(Boolean), indent, (inner) => {
					for (const m of node.members)
						out.push(`${inner}${next()}[${label(m.count > 1 ? `${m.agent.value} ×${m.count}` : m.agent.value)}]`);
				});
			default: {
				const box = next();
				out.push(`${indent}${box}[${label(id, ...leaf(node, flow), onFail(node))}]`);
				return box;
			}
		}
	};
	seq(flow.nodes, "  ");
	return `${out.join("\n")}\n`;
}

/** What a leaf box says under its id: the agent for agents, the callee and its input for calls. */
function leaf(node: FlowNode, flow: CheckedFlow): string[] {
	switch (node.kind) {
		case "agent":
			return node.agent
				? [node.agent.value]
				: [`${(node.among ?? []).map((a) => a.value).join(", ")} (from ${node.agentFrom?.text ?? "?"})`];
		case "flow": {
			const callee = flow.callees.get(node.id.value);
			return [`flow ${node.callee?.value ?? callee?.name.value ?? ""}`, `input: ${node.input?.text ?? ""}`];
		}
		default:
			return [node.kind];
	}
}
