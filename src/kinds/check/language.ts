/**
 * A check: a project script run with bash (`check: .pi/checks/test.sh`), never a command. Its output is
 * `{ passed, report }`; its bound is its timeout (120s by default), and it takes no turn.
 */
import { isAbsolute, normalize } from "node:path";
import type { CheckNode } from "../../language/ast.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { DEFAULT_CHECK_TIMEOUT_MS } from "../../language/check/bounds.ts";
import { CHECK_TYPE } from "../../language/check/node-types.ts";
import type { KindModule } from "../../language/kind.ts";
import { KEY, text } from "../../language/keys.ts";

/** The check kind. */
export const checkKind: KindModule<CheckNode, "check"> = {
	kind: "check",
	kindKeys: [
		{
			key: "check",
			schema: text("A script's path from the repository root, run with bash; never a command.", {
				pattern: "^(?!/)(?!\\.\\.(/|$))\\S+$",
			}),
		},
	],
	keys: { timeout: KEY.timeout, reuse: KEY["reuse-never"] },
	noRetry: "a check is a script: raise its `timeout:` or make it stable instead",
	section: false,
	leaf: true,
	modelTurns: false,
	read: readCheck,
	// Nothing to resolve: the script is a path the builder read, and the run stage looks for it.
	check: () => CHECK_TYPE,
	output: () => CHECK_TYPE,
	bodies: () => [],
	bound: (node) => ({ turns: 0, ms: node.timeout?.value ?? DEFAULT_CHECK_TIMEOUT_MS, waits: false }),
	width: () => 0,
	timed: (node) => node,
	plan(node, row) {
		row.what = `check ${node.script?.value ?? ""}`.trim();
		row.timeout = node.timeout
			? { ms: node.timeout.value, source: "node" }
			: { ms: DEFAULT_CHECK_TIMEOUT_MS, source: "default" };
	},
	mermaid: (_node, m) => m.box(["check"]),
	graph: (node, g) => g.leaf(`check ${node.script?.value ?? ""}`),
};

/** `check: .pi/checks/test.sh`: a path from the repository root, never a command. */
export function readCheck(n: NodeInput): CheckNode {
	const { ctx, keys, path } = n;
	const main = keys.get("check") as Entry;
	const script = ctx.str(main, `${path}.check`, "a script path from the repository root");
	const node = { kind: "check", ...base(n) } as CheckNode;
	if (script) {
		const clean = normalize(script.value);
		if (isAbsolute(script.value) || clean === ".." || clean.startsWith("../")) {
			ctx.report(
				"key-type",
				script.range,
				`${path}.check`,
				`\`${script.value}\` leaves the repository; a check is a path inside it, like \`.pi/checks/test.sh\``,
			);
		} else if (/\s/.test(script.value)) {
			ctx.report(
				"key-type",
				script.range,
				`${path}.check`,
				"a check is a script's path, never a command: put the command in a script",
			);
		} else node.script = script;
	}
	const timeout = keys.get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	return node;
}
