/**
 * A wait: the run sleeps for a duration (`wait: 90s`), or for one an earlier node produced (`wait-from:`,
 * at most `max:`), then goes on. It takes no turn; its bound is its duration (or its `max`), so the plan's
 * worst-case time counts it. Its output is `{ ms }`, what it waited. The run half is `run.ts`: the wait is
 * durable (a resume after a crash mid-wait waits only what is left) and a dry run does not sleep.
 */
import type { WaitNode } from "../../language/ast.ts";
import type { Entry } from "../../language/build/context.ts";
import { base, type NodeInput } from "../../language/build/node.ts";
import { readAddress } from "../../language/check/reads.ts";
import type { Scope } from "../../language/check/scope.ts";
import { report, type Walk } from "../../language/check/walk.ts";
import type { KindModule } from "../../language/kind.ts";
import { address, ref } from "../../language/keys.ts";
import { formatDuration } from "../../language/syntax/index.ts";
import { field, NUMBER, objectOf, type Type, typeToString } from "../../language/types/index.ts";

/** What a wait outputs: the milliseconds it waited (its duration, whatever the clock did). */
export const WAIT_TYPE: Type = objectOf([field("ms", NUMBER)]);

/** The wait kind. */
export const waitKind: KindModule<WaitNode, "wait" | "wait-from"> = {
	kind: "wait",
	kindKeys: [
		{
			key: "wait",
			schema: { ...ref("duration"), description: "How long the run sleeps here: `90s`, `10m`, `1h30m`." },
			refuses: { max: "`wait-from` nodes (a literal `wait:` is its own bound)" },
		},
		{
			key: "wait-from",
			schema: address('An address of a duration ("90s") or a number of seconds; the run sleeps that long.'),
			requires: ["max"],
		},
	],
	keys: {
		max: { ...ref("duration"), description: "The longest a `wait-from` sleeps: a longer duration waits this." },
	},
	noRetry: "a wait has nothing to try again",
	section: false,
	leaf: true,
	modelTurns: false,
	read: readWait,
	check: checkWait,
	output: () => WAIT_TYPE,
	bodies: () => [],
	bound: (node) => ({ turns: 0, ms: waitBound(node), waits: false }),
	width: () => 0,
	timed: (node) => node,
	plan(node, row) {
		row.what = waitWords(node);
	},
	mermaid: (node, m) => m.box([waitWords(node)]),
	graph: (node, g) => g.leaf(waitWords(node)),
};

/** The longest the node can sleep. */
function waitBound(node: WaitNode): number {
	return node.ms?.value ?? node.max?.value ?? 0;
}

/** `wait 90s`, `wait for plan.output.delay (at most 10m)`. */
function waitWords(node: WaitNode): string {
	if (node.from) return `wait for ${node.from.text}${node.max ? ` (at most ${formatDuration(node.max.value)})` : ""}`;
	return `wait ${node.ms ? formatDuration(node.ms.value) : "?"}`;
}

/** `wait: <duration>`, or `wait-from: <address>` with `max: <duration>`. */
export function readWait(n: NodeInput): WaitNode {
	const { ctx, keys, path } = n;
	const main = keys.get(n.kindKey) as Entry;
	const node: WaitNode = { kind: "wait", ...base(n) };
	if (n.kindKey === "wait") {
		const ms = ctx.duration(main, `${path}.wait`);
		if (ms) node.ms = ms;
		return node;
	}
	const from = ctx.address(main, `${path}.wait-from`);
	if (from) node.from = from;
	const max = keys.get("max");
	if (!max)
		ctx.report("missing-key", main.keyRange, `${path}.max`, "`wait-from` needs `max:`, the longest it will wait");
	else {
		const m = ctx.duration(max, `${path}.max`);
		if (m) node.max = m;
	}
	return node;
}

/** A `wait-from` reads a duration written as text (`"90s"`) or a number of seconds. */
function checkWait(w: Walk, node: WaitNode, scope: Scope): Type {
	if (node.from) {
		const t = readAddress(w, node.from, scope, `${node.path}.wait-from`);
		if (t && t.kind !== "string" && t.kind !== "text" && t.kind !== "number")
			report(
				w,
				"key-type",
				node.from.range,
				`${node.path}.wait-from`,
				`\`wait-from\` reads a duration ("90s") or a number of seconds; \`${node.from.text}\` is ${typeToString(t)}`,
			);
	}
	return WAIT_TYPE;
}
