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
import type { MermaidKit } from "../kind.ts";

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

	/** Each kind draws itself (its module's `mermaid`); a leaf's box is the id over the kind's lines. */
	const one = (node: FlowNode, indent: string): string => {
		const onFail = node.onFail ? "on-fail: continue" : "";
		const kit: MermaidKit = {
			flow,
			indent,
			onFail,
			out,
			next,
			label,
			seq,
			subgraph,
			box: (lines) => {
				const box = next();
				out.push(`${indent}${box}[${label(node.id.value, ...lines, onFail)}]`);
				return box;
			},
		};
		return flow.kinds.of(node).mermaid(node, kit);
	};
	seq(flow.nodes, "  ");
	return `${out.join("\n")}\n`;
}
