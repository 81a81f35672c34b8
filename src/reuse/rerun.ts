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
	const walk = (nodes: readonly FlowNode[], at: string) => {
		for (const n of nodes) {
			const address = at ? `${at}/${n.id.value}` : n.id.value;
			out.push(address);
			if (n.kind === "parallel") for (const b of n.branches) walk(b.body, `${address}/${b.name.value}`);
			else if (n.kind === "map" || n.kind === "loop") walk(n.body, address);
			else if (n.kind === "choice")
				for (const body of [...n.cases.map((c) => c.body), n.otherwise]) walk(body, address);
			else if (n.kind === "flow") {
				const callee = flow.callees.get(n.id.value);
				if (callee) out.push(...visitAddresses(callee, address));
			}
		}
	};
	walk(flow.nodes, prefix);
	return [...new Set(out)];
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
