/**
 * A commit: commits the tree on the run's own branch, with an earlier node's text (or a string field of its
 * output) as the message. Its output is `{ committed, sha?, branch }`; it takes no turn and no time.
 */
import type { CommitNode } from "../ast.ts";
import type { Entry } from "../build/context.ts";
import { base, type NodeInput } from "../build/node.ts";
import { ZERO } from "../check/bounds.ts";
import { checkCommit } from "../check/leaves.ts";
import { COMMIT_TYPE } from "../check/node-types.ts";
import type { KindModule } from "./kind.ts";
import { address } from "./keys.ts";

/** The commit kind. */
export const commitKind: KindModule<CommitNode, "commit"> = {
	kind: "commit",
	kindKeys: [
		{ key: "commit", schema: address("An earlier node's text, or a string field of its output: the commit message.") },
	],
	keys: {},
	noRetry: "put the retry on the node that writes the message",
	section: false,
	read: readCommit,
	check: (w, node, scope) => checkCommit(w, node, scope),
	output: () => COMMIT_TYPE,
	bodies: () => [],
	bound: () => ZERO,
	width: () => 0,
	timed: (node) => node,
	plan(node, row) {
		row.what = `commit ${node.message?.text ?? ""}`.trim();
	},
	mermaid: (_node, m) => m.box(["commit"]),
	graph: (node, g) => g.leaf(`commit ${node.message?.text ?? ""}`),
};

/** `commit: <address>`: an earlier node's text or a string field of its output. */
export function readCommit(n: NodeInput): CommitNode {
	const main = n.keys.get("commit") as Entry;
	const message = n.ctx.address(main, `${n.path}.commit`);
	return { kind: "commit", ...base(n), ...(message ? { message } : {}) } as CommitNode;
}
