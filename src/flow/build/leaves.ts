/**
 * Leaf nodes besides agents: `check` (a project script), `commit`, `ask` (a question to the person),
 * `flow` (another flow as one node) and `swarm` (members sharing a goal, a board and claims).
 */
import { isAbsolute, normalize } from "node:path";
import { isScalar, type Node } from "yaml";
import type { AskNode, CallNode, CheckNode, CommitNode, Located, SwarmNode } from "../ast.ts";
import { readReads } from "./agent.ts";
import { type Entry, plain, seqItems } from "./context.ts";
import { base, type NodeInput } from "./node.ts";
import { describe } from "./yaml-nodes.ts";

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

/** `commit: <address>`: an earlier node's text or a string field of its output. */
export function readCommit(n: NodeInput): CommitNode {
	const main = n.keys.get("commit") as Entry;
	const message = n.ctx.address(main, `${n.path}.commit`);
	return { kind: "commit", ...base(n), ...(message ? { message } : {}) } as CommitNode;
}

/** `flow: <name>` with `input: <address>`. */
export function readCall(n: NodeInput): CallNode {
	const { ctx, keys, path } = n;
	const callee = ctx.str(keys.get("flow") as Entry, `${path}.flow`, "a flow's name");
	const node = { kind: "flow", ...base(n) } as CallNode;
	if (callee) node.callee = callee;
	const input = keys.get("input");
	if (!input)
		ctx.report(
			"missing-key",
			(keys.get("flow") as Entry).keyRange,
			`${path}.input`,
			"a `flow` node needs `input:`, an address (use `input` to pass this flow's input on)",
		);
	else {
		const a = ctx.address(input, `${path}.input`);
		if (a) node.input = a;
	}
	return node;
}

/** An `ask`: a choice card (`options:` or `ask-from:`), a yes/no (`confirm: true`) or free text. */
export function readAsk(n: NodeInput): AskNode {
	const { ctx, keys, path } = n;
	const main = keys.get(n.kindKey) as Entry;
	const node: AskNode = { kind: "ask", ...base(n), reads: readReads(ctx, keys.get("reads"), path) };
	if (n.kindKey === "ask") {
		const q = ctx.str(main, `${path}.ask`, "the question");
		if (q) node.question = q;
	} else {
		const a = ctx.address(main, `${path}.ask-from`);
		if (a) node.questionFrom = a;
	}
	const options = keys.get("options");
	const confirm = keys.get("confirm");
	const enough = keys.get("enough");
	if ((options || confirm) && n.kindKey === "ask-from") {
		// Each key an `ask-from` cannot take is its own mistake: combo reports both when both are written.
		for (const e of [options, confirm]) {
			if (e)
				ctx.report(
					"ask-form-conflict",
					e.keyRange,
					`${path}.${e.key}`,
					"`ask-from` brings its own options; it takes no `options` or `confirm`",
				);
		}
	} else if (options && confirm)
		ctx.report(
			"ask-form-conflict",
			confirm.keyRange,
			`${path}.confirm`,
			"`options` and `confirm` are two forms of card; write one",
		);
	else if (enough && !options && n.kindKey === "ask") {
		ctx.report(
			"ask-form-conflict",
			enough.keyRange,
			`${path}.enough`,
			"`enough` is a choice card's \"that's enough\" label; a yes/no or free-text card has none",
		);
	}
	if (options && !confirm && n.kindKey === "ask") {
		const read = readOptions(n, options);
		if (read) node.options = read;
	}
	if (confirm) {
		const c = ctx.bool(confirm, `${path}.confirm`);
		if (c?.value === true) node.confirm = c;
		else if (c)
			ctx.report("key-type", c.range, `${path}.confirm`, "write `confirm: true`, or leave it out for a free-text card");
	}
	if (enough) {
		const e = ctx.str(enough, `${path}.enough`, "a label");
		if (e) node.enough = e;
	}
	const timeout = keys.get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	// A card whose form was refused has no known answer shape: conditions reading it were reported here.
	if ((options && !node.options) || (confirm && !node.confirm)) n.refused.add(`${n.id.value}.output`);
	const dflt = keys.get("default");
	if (dflt) {
		const v = plain(dflt.value);
		const labels = node.options?.map((o) => o.label.value);
		const fits = node.confirm
			? typeof v === "boolean"
			: labels
				? typeof v === "string" && labels.includes(v)
				: typeof v === "string";
		if (!fits) {
			const what = node.confirm ? "true or false" : labels ? `one of the options (${labels.join(", ")})` : "a string";
			ctx.report(
				"ask-default-mismatch",
				dflt.range,
				`${path}.default`,
				`this card cannot answer ${describe(dflt.value)}; \`default\` must be ${what}`,
				labels ? { expected: labels } : {},
			);
		} else node.fallback = { value: v, range: dflt.range };
	}
	return node;
}

function readOptions(n: NodeInput, entry: Entry): AskNode["options"] {
	const { ctx, path } = n;
	const items = seqItems(entry.value);
	if (!items) {
		ctx.report("key-type", entry.range, `${path}.options`, "`options` is a list of labels or `{ label, description }`");
		return undefined;
	}
	if (items.length < 2 || items.length > 4) {
		ctx.report(
			"ask-options-count",
			entry.range,
			`${path}.options`,
			`a card offers 2 to 4 options, not ${items.length}`,
		);
		return undefined;
	}
	const out: NonNullable<AskNode["options"]> = [];
	for (const item of items) {
		const range = ctx.rangeOf(item, entry.range);
		let label: string | undefined;
		let description: string | undefined;
		if (isScalar(item) && typeof item.value === "string") label = item.value;
		else {
			const entries = ctx.entries(item);
			const l = entries?.find((e) => e.key === "label");
			const d = entries?.find((e) => e.key === "description");
			if (entries) ctx.unknownKeys(entries, ["label", "description"], `${path}.options`, "an option");
			if (l && isScalar(l.value) && typeof l.value.value === "string") label = l.value.value;
			if (d && isScalar(d.value) && typeof d.value.value === "string") description = d.value.value;
		}
		if (!label?.trim()) {
			ctx.report(
				"key-type",
				range,
				`${path}.options`,
				`an option is a label or \`{ label, description }\`, not ${describe(item)}`,
			);
			return undefined;
		}
		if (out.some((o) => o.label.value === label)) {
			ctx.report("ask-options-duplicate", range, `${path}.options`, `the label \`${label}\` is offered twice`);
			return undefined;
		}
		out.push({ label: { value: label, range }, ...(description ? { description } : {}) });
	}
	return out;
}

/** `swarm: [scout, { agent: reviewer, count: 2 }]` with `rounds:`, `claims-from:`, `until:`. */
export function readSwarm(n: NodeInput): SwarmNode {
	const { ctx, keys, path } = n;
	const main = keys.get("swarm") as Entry;
	const node = {
		kind: "swarm",
		...base(n),
		members: [],
		reads: readReads(ctx, keys.get("reads"), path),
	} as unknown as SwarmNode;
	const items = seqItems(main.value);
	if (!items || items.length === 0)
		ctx.report(
			"key-type",
			main.range,
			`${path}.swarm`,
			"`swarm` is a non-empty list of members: agent names or `{ agent, count }`",
		);
	for (const item of items ?? []) node.members.push(...member(n, item, main));
	const rounds = keys.get("rounds");
	if (!rounds)
		ctx.report("missing-key", main.keyRange, `${path}.rounds`, "a swarm needs `rounds:`, the most rounds it may run");
	else {
		const r = ctx.int(rounds, `${path}.rounds`, 1);
		if (r) node.rounds = r;
	}
	const claims = keys.get("claims-from");
	if (claims) {
		const a = ctx.address(claims, `${path}.claims-from`);
		if (a) node.claimsFrom = a;
	}
	const until = keys.get("until");
	if (until) {
		const c = ctx.condition(until, `${path}.until`);
		if (c) node.until = c;
	}
	const timeout = keys.get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	return node;
}

function member(n: NodeInput, item: Node, main: Entry): SwarmNode["members"] {
	const range = n.ctx.rangeOf(item, main.range);
	if (isScalar(item) && typeof item.value === "string" && item.value.trim())
		return [{ agent: { value: item.value.trim(), range }, count: 1, range }];
	const entries = n.ctx.entries(item);
	const agent = entries?.find((e) => e.key === "agent");
	const count = entries?.find((e) => e.key === "count");
	if (!entries || !agent) {
		n.ctx.report(
			"key-type",
			range,
			`${n.path}.swarm`,
			`a member is an agent name or \`{ agent, count }\`, not ${describe(item)}`,
		);
		return [];
	}
	n.ctx.unknownKeys(entries, ["agent", "count"], `${n.path}.swarm`, "a member");
	const a = n.ctx.str(agent, `${n.path}.swarm`, "an agent's name");
	const c: Located<number> | undefined = count ? n.ctx.int(count, `${n.path}.swarm`, 1) : { value: 1, range };
	return a && c ? [{ agent: a, count: c.value, range }] : [];
}
