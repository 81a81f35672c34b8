/**
 * A commit: commits the tree on the run's own branch, with an earlier node's text (or a string field of its
 * output) as the message. Its output is `{ committed, sha?, branch }`; it takes no turn and no time.
 */
import type { CommitNode } from "../../language/ast.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { ZERO } from "../../language/check/bounds.ts";
import { COMMIT_TYPE } from "../../language/check/node-types.ts";
import { readAddress } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import { type Type, typeToString } from "../../language/types/index.ts";
import type { KindModule } from "../../language/kind.ts";
import { address } from "../../language/keys.ts";

/** The commit kind. */
export const commitKind: KindModule<CommitNode, "commit"> = {
	kind: "commit",
	kindKeys: [
		{ key: "commit", schema: address("An earlier node's text, or a string field of its output: the commit message.") },
	],
	keys: {},
	noRetry: "put the retry on the node that writes the message",
	section: false,
	leaf: true,
	modelTurns: false,
	read: readCommit,
	check: checkCommit,
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

/** A commit's message is an earlier node's text or a string field of its output. */
function checkCommit(w: Walk, node: CommitNode, scope: Scope): Type {
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
