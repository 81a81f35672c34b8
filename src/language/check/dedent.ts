/**
 * A node written one indentation level too shallow: it lands right after a block, outside its `do:`, and
 * every read that crossed the block's edge breaks on its own (the loop's condition reads a node that has
 * "not ended", the node reads the body's nodes that have "not ended", its `verdict:` names a block that is
 * "not" an enclosing one). Those faults are true and useless; the mistake is one, its indentation. This
 * pass, run on the checker's faults, finds such a node (one the block before it reads, from its `loop:`
 * or other keys: nothing else makes a block read a later node) and puts one `node-indentation` fault in
 * place of the faults it caused. A later node that only reads into a body it cannot see keeps its
 * `unknown-address`.
 *
 *   nodes: [{ id: fix, loop: review.output.approved, do: [code] }, { id: review, reads: [code] }]
 *   → one fault at `review`: "`review` stands after `fix`, outside its `do:` …; indent it under `fix`'s `do:`"
 */
import { fault, type Fault } from "../../faults/index.ts";
import { allNodes, type FlowNode } from "../ast.ts";

/** Every sequence of sibling nodes in the tree: the flow's, and each body of each block. */
function sequences(nodes: readonly FlowNode[]): (readonly FlowNode[])[] {
	const out: (readonly FlowNode[])[] = [nodes];
	for (const n of nodes) for (const body of bodiesOf(n)) out.push(...sequences(body));
	return out;
}

function bodiesOf(n: FlowNode): (readonly FlowNode[])[] {
	switch (n.kind) {
		case "choice":
			return [...n.cases.map((c) => c.body), n.otherwise];
		case "parallel":
			return n.branches.map((b) => b.body);
		case "map":
		case "loop":
			return [n.body];
		default:
			return [];
	}
}

const notEnded = (f: Fault, id: string) => f.message.startsWith(`\`${id}\` has not ended before this point`);
const under = (f: Fault, path: string) =>
	f.path === path || f.path.startsWith(`${path}.`) || f.path.startsWith(`${path}/`);

/** The faults with each mis-indented node's cascade replaced by one `node-indentation` fault. */
export function explainDedents(file: string, nodes: readonly FlowNode[], faults: readonly Fault[]): Fault[] {
	let out = [...faults];
	for (const seq of sequences(nodes)) {
		for (let i = 1; i < seq.length; i++) {
			const block = seq[i - 1];
			const node = seq[i];
			const body = bodiesOf(block).flatMap((b) => allNodes(b));
			if (!body.length) continue;
			const inside = new Set(body.map((n) => n.id.value));
			// The block's own keys (not its body) reading the node: its condition, its carry.
			const blockReadsIt = out.filter((f) => f.path.startsWith(`${block.path}.`) && notEnded(f, node.id.value));
			const itReadsInside = out.filter(
				(f) =>
					under(f, node.path) &&
					([...inside].some((id) => notEnded(f, id)) ||
						(f.code === "unknown-scope" &&
							f.path.endsWith(".verdict") &&
							f.message.includes(`\`${block.id.value}\` is not one`))),
			);
			// The block reading a node that comes after it is what tells a dedent from a later node reading
			// a body it cannot see (which stays `unknown-address`, as combo has it).
			if (!blockReadsIt.length) continue;
			const caused = new Set([...blockReadsIt, ...itReadsInside]);
			const why = [
				...(blockReadsIt.length ? [`\`${block.id.value}\` reads it`] : []),
				...(itReadsInside.length ? [`it reads what runs inside \`${block.id.value}\``] : []),
			].join(" and ");
			out = out.filter((f) => !caused.has(f));
			out.push(
				fault(
					"node-indentation",
					file,
					node.id.range,
					node.path,
					`\`${node.id.value}\` stands after \`${block.id.value}\`, outside its \`do:\`, yet ${why}: check its indentation.`,
					{
						hint: `Indent \`${node.id.value}\` (its \`- id:\` line and its keys) under \`${block.id.value}\`'s \`do:\`, level with its other nodes.`,
					},
				),
			);
		}
	}
	return out;
}
