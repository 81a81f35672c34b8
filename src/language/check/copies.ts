/**
 * The rules for blocks whose branches run at the same time: a branch that can write needs its own copy
 * of the tree (`copies: true`); a commit cannot happen inside copies; a memory scope used inside copies
 * opens inside them. "Can write" is read from the agent files (`WRITING_TOOLS` of src/agents/tools.ts in `tools:`),
 * conservatively, as combo does; a node's narrower `tools:` counts.
 */
import { mayWriteWith } from "../../agents/index.ts";
import type { AgentNode, FlowNode } from "../ast.ts";
import { childrenOf } from "../ast.ts";
import type { CheckedFlow } from "./checked.ts";
import { agentsOf, report, type Walk } from "./walk.ts";

/** Whether any node of `nodes` (or a callee) can change the tree. */
export function canWrite(w: Walk, nodes: readonly FlowNode[]): boolean {
	return nodes.some((n) => writes(w, n) || canWrite(w, childrenOf(n)));
}

function writes(w: Walk, node: FlowNode): boolean {
	if (node.kind === "commit") return true;
	if (node.kind === "flow") return calleeWrites(w.callees.get(node.id.value));
	if (node.kind === "swarm")
		return node.members.some((m) => {
			const a = w.roster.get(m.agent.value);
			return a?.kind === "agent" && mayWriteWith(a.tools);
		});
	if (node.kind !== "agent") return false;
	const narrowed = node.tools?.map((t) => t.value);
	return agentsOf(w, node).some((a) => mayWriteWith(narrowed ?? a.tools));
}

function calleeWrites(callee: CheckedFlow | undefined): boolean {
	return callee?.writes ?? false;
}

function commits(w: Walk, nodes: readonly FlowNode[]): FlowNode | undefined {
	for (const n of nodes) {
		if (n.kind === "commit") return n;
		if (n.kind === "flow" && w.callees.get(n.id.value)?.commits) return n;
		const inner = commits(w, childrenOf(n));
		if (inner) return inner;
	}
	return undefined;
}

/** Applies the copies rules to every block of the flow. */
export function checkCopies(w: Walk): void {
	const visit = (
		nodes: readonly FlowNode[],
		insideCopies: ReadonlySet<string> | undefined,
		open: ReadonlySet<string>,
	) => {
		for (const node of nodes) {
			if (insideCopies && node.kind === "agent" && node.memory && !open.has(node.memory.value)) {
				report(
					w,
					"memory-outside-copies",
					node.memory.range,
					`${node.path}.memory`,
					`\`${node.memory.value}\` opens outside the \`copies: true\` block this node is in; scope the memory to a node inside it`,
				);
			}
			const concurrent =
				(node.kind === "parallel" && node.branches.length >= 2) ||
				(node.kind === "map" && (node.concurrency?.value ?? 1) > 1);
			const copies = (node.kind === "parallel" || node.kind === "map") && node.copies?.value === true;
			if (concurrent && !copies && canWrite(w, childrenOf(node))) {
				report(
					w,
					"copies-needed",
					node.id.range,
					node.path,
					`branches of \`${node.id.value}\` run at the same time and can write to the tree; add \`copies: true\` (or run one at a time)`,
				);
			}
			if (copies) {
				const c = commits(w, childrenOf(node));
				if (c)
					report(
						w,
						"commit-in-copies",
						c.id.range,
						c.path,
						`\`${c.id.value}\` commits inside the \`copies: true\` block \`${node.id.value}\`; commit after the block`,
					);
			}
			const nowInside = copies ? new Set<string>() : insideCopies;
			const nowOpen = nowInside ? new Set([...(copies ? [] : open), node.id.value]) : open;
			visit(childrenOf(node), nowInside, nowOpen);
		}
	};
	visit(w.flow.nodes, undefined, new Set());
}

/** Nodes sharing a subagent (same scope, same agent) must declare the same `output:`. */
export function checkMemory(w: Walk): void {
	const seen = new Map<string, { node: AgentNode; output?: string }>();
	const done = new Set<AgentNode>();
	for (const use of w.memory) {
		if (done.has(use.node)) continue;
		done.add(use.node);
		const key = `${use.scope}/${use.agent}`;
		const output = use.output ? JSON.stringify(use.output) : undefined;
		const first = seen.get(key);
		if (!first) seen.set(key, { node: use.node, ...(output ? { output } : {}) });
		else if (output && first.output && output !== first.output) {
			report(
				w,
				"memory-output-mismatch",
				use.node.output?.range ?? use.node.id.range,
				`${use.node.path}.output`,
				`\`${use.node.id.value}\` shares \`${use.agent}\` in \`${use.scope}\` with \`${first.node.id.value}\` but declares a different \`output:\``,
				{
					related: [
						{
							message: "the other node",
							file: w.flow.file,
							line: first.node.id.range.start.line,
							column: first.node.id.range.start.column,
						},
					],
				},
			);
		} else if (output && !first.output) seen.set(key, { node: use.node, output });
	}
}
