/**
 * "Rerun from this node" (`--rerun-from`): the nodes a run reusing an earlier one plays again whatever
 * their identity, read against the flow as it is now. A node is named by its address as its visits are
 * (`work/act`, a parallel's branch in it: `checks/lint/run`; a called flow's node under its call), so a
 * name the flow no longer has is refused with the nearest one, before anything spawns.
 *
 *   readRerunFrom("review", flow)        → { ok: true, value: ["review"] }
 *   readRerunFrom("reviw", flow)         → { ok: false, error: "the flow has no node `reviw`. Did you mean `review`?" }
 */
import type { CheckedFlow, FlowNode } from "../language/index.ts";
import { missHint } from "../faults/index.ts";

/**
 * Every node address a visit of `flow` can have, in file order: iterations and items left out, a
 * parallel's branch name kept (it is in its visits' paths), a callee's nodes under the call's address.
 */
export function visitAddresses(flow: CheckedFlow, prefix = ""): string[] {
	const out: string[] = [];
	walk(flow, prefix, (address) => out.push(address));
	return [...new Set(out)];
}

/**
 * The flow's own nodes by their path as the checker keys them (`par/a`: ids only) to the address their
 * visits have (`par/left/a`: a parallel's branch in it), so tables keyed either way meet.
 */
export function visitAddressOf(flow: CheckedFlow): Map<string, string> {
	const out = new Map<string, string>();
	walk(flow, "", (address, node) => {
		if (node) out.set(node.path, address);
	});
	return out;
}

/** Every node in file order with its visits' address; a callee's nodes come without theirs (`node` absent). */
function walk(flow: CheckedFlow, prefix: string, see: (address: string, node?: FlowNode) => void): void {
	const step = (nodes: readonly FlowNode[], at: string) => {
		for (const n of nodes) {
			const address = at ? `${at}/${n.id.value}` : n.id.value;
			see(address, n);
			if (n.kind === "parallel") for (const b of n.branches) step(b.body, `${address}/${b.name.value}`);
			else if (n.kind === "map" || n.kind === "loop") step(n.body, address);
			else if (n.kind === "choice")
				for (const body of [...n.cases.map((c) => c.body), n.otherwise]) step(body, address);
			else if (n.kind === "flow") {
				const callee = flow.callees.get(n.id.value);
				if (callee) walk(callee, address, (a) => see(a));
			}
		}
	};
	step(flow.nodes, prefix);
}

/**
 * `--rerun-from A[,B]` read against the flow: each a node address of it (a block's address plays
 * everything in it), or the sentence saying which is not and what is near.
 */
export function readRerunFrom(
	text: string,
	flow: CheckedFlow,
): { ok: true; value: string[] } | { ok: false; error: string } {
	const asked = text
		.split(",")
		.map((s) => s.trim())
		.filter(Boolean);
	if (!asked.length) return { ok: false, error: "--rerun-from names a node of the flow (its address: `work/act`)" };
	const known = visitAddresses(flow);
	for (const a of asked) {
		if (known.includes(a)) continue;
		const hint = missHint(a, known, { what: "nodes of the flow", where: "`pi-flows graph` shows them", listUpTo: 12 });
		return { ok: false, error: `${flow.name.value} has no node \`${a}\` (as its file is now).${hint.text}` };
	}
	return { ok: true, value: [...new Set(asked)] };
}
