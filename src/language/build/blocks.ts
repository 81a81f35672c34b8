/**
 * Keys several blocks read the same way: the body `do:`, `ledger:` (the block's own id), and `copies`,
 * `fail-fast`, `join` of a parallel or a map. Each block's own reader is its kind module (`kinds/`).
 */
import { isScalar } from "yaml";
import type { Join, Located, ParallelNode } from "../ast.ts";
import type { BuildContext, Entry } from "./context.ts";
import { type NodeInput, readSequence } from "./node.ts";
import { describe } from "./yaml-nodes.ts";

/** The body `do:` of a map or a loop, read as a sequence. */
export function readBody(n: NodeInput) {
	const body = n.keys.get("do");
	if (!body) {
		n.ctx.report("missing-key", (n.keys.get(n.kindKey) as Entry).keyRange, `${n.path}.do`, "the body `do:` is missing");
		return [];
	}
	return readSequence(n.ctx, body.value, body.range, n.path, n.refused);
}

/** `ledger:` names the block's own id (one ledger per loop, or per map item). */
export function ownId(ctx: BuildContext, entry: Entry | undefined, n: NodeInput): Located<string> | undefined {
	if (!entry) return undefined;
	const s = ctx.str(entry, `${n.path}.ledger`, "this node's own id");
	if (s && s.value !== n.id.value) {
		ctx.report(
			"key-type",
			s.range,
			`${n.path}.ledger`,
			`\`ledger\` names the node's own id (\`${n.id.value}\`), not \`${s.value}\``,
			{ expected: [n.id.value] },
		);
		return undefined;
	}
	return s;
}

/** `copies`, `fail-fast` and `join` of a parallel or map. */
export function blockOptions(ctx: BuildContext, keys: ReadonlyMap<string, Entry>, path: string) {
	const out: Partial<Pick<ParallelNode, "copies" | "failFast" | "join">> = {};
	const copies = keys.get("copies");
	if (copies) {
		const b = ctx.bool(copies, `${path}.copies`);
		if (b) out.copies = b;
	}
	const failFast = keys.get("fail-fast");
	if (failFast) {
		const b = ctx.bool(failFast, `${path}.fail-fast`);
		if (b) out.failFast = b;
	}
	const join = keys.get("join");
	if (join) {
		const v = isScalar(join.value) ? join.value.value : undefined;
		let j: Join | undefined;
		if (v === "all") j = { kind: "all" };
		else if (v === "any") j = { kind: "any" };
		else if (typeof v === "number" && Number.isSafeInteger(v) && v >= 1) j = { kind: "quorum", count: v };
		if (j) out.join = { value: j, range: join.range };
		else
			ctx.report(
				"key-type",
				join.range,
				`${path}.join`,
				`\`join\` is \`all\`, \`any\` or a whole number of branches that must succeed, not ${describe(join.value)}`,
			);
	}
	return out;
}
