/**
 * An agent node: one turn of an agent, named literally (`agent:`) or picked from an enum value
 * (`agent-from:` with `among:`), with its reads, its output type and its per-node settings.
 */
import type { AgentNode, HandoffDecl } from "../ast.ts";
import { type BuildContext, type Entry, seqItems } from "./context.ts";
import { base, type NodeInput } from "./node.ts";
import { THINKING_LEVELS } from "./words.ts";

/** Reads an agent node. */
export function readAgent(n: NodeInput): AgentNode {
	const { ctx, keys, path } = n;
	const node: AgentNode = { kind: "agent", ...base(n), reads: readReads(ctx, keys.get("reads"), path) };
	const main = keys.get(n.kindKey) as Entry;
	if (n.kindKey === "agent") {
		const agent = ctx.str(main, `${path}.agent`, "an agent's name");
		if (agent) node.agent = agent;
		const among = keys.get("among");
		if (among)
			ctx.report(
				"among-without-from",
				among.keyRange,
				`${path}.among`,
				"`among` goes with `agent-from`, not with a literal `agent`",
			);
	} else {
		const from = ctx.address(main, `${path}.agent-from`);
		if (from) node.agentFrom = from;
		const among = keys.get("among");
		if (!among)
			ctx.report("missing-key", main.keyRange, `${path}.among`, "`agent-from` needs `among:`, the agents it may pick");
		else {
			const names = ctx.names(among, `${path}.among`, "agent names");
			if (names) node.among = names;
		}
	}
	const get = (key: string) => keys.get(key);
	const output = get("output");
	const verdict = get("verdict");
	if (output && verdict)
		ctx.report(
			"verdict-with-output",
			output.keyRange,
			`${path}.output`,
			"a `verdict:` node answers `{ approved, remarks? }` through the verdict tool; it takes no `output:`",
		);
	else if (output) {
		const t = ctx.type(output, `${path}.output`);
		if (t) node.output = t;
		// The type was refused where written; reads into this node's output would repeat that one mistake.
		else n.refused.add(`${n.id.value}.output`);
	}
	if (verdict) {
		const v = ctx.str(verdict, `${path}.verdict`, "the id of an enclosing node with a `ledger:`");
		if (v) node.verdict = v;
	}
	for (const key of ["pane", "openInHerdr"]) {
		const e = get(key);
		const v = e ? ctx.bool(e, `${path}.${key}`) : undefined;
		if (v) node.pane = v;
	}
	const memory = get("memory");
	if (memory) {
		const m = ctx.str(memory, `${path}.memory`, "an enclosing node's id or `flow`");
		if (m) node.memory = m;
	}
	const retry = get("retry");
	if (retry) {
		const r = ctx.int(retry, `${path}.retry`, 0);
		if (r) node.retry = r;
	}
	const timeout = get("timeout");
	if (timeout) {
		const t = ctx.duration(timeout, `${path}.timeout`);
		if (t) node.timeout = t;
	}
	const model = get("model");
	if (model) {
		const m = ctx.str(model, `${path}.model`, "a model like `provider/id`");
		if (m) node.model = m;
	}
	const thinking = get("thinking");
	if (thinking) {
		const t = ctx.str(thinking, `${path}.thinking`, `one of ${THINKING_LEVELS.join(", ")}`);
		if (t && !THINKING_LEVELS.includes(t.value)) {
			ctx.report(
				"key-type",
				t.range,
				`${path}.thinking`,
				`\`thinking\` must be one of ${THINKING_LEVELS.join(", ")}, not \`${t.value}\``,
				{ expected: THINKING_LEVELS },
			);
		} else if (t) node.thinking = t;
	}
	const tools = get("tools");
	if (tools) {
		const t = ctx.names(tools, `${path}.tools`, "tool names");
		if (t) node.tools = t;
	}
	const skills = get("skills");
	if (skills) {
		const s = ctx.names(skills, `${path}.skills`, "skill names");
		if (s) node.skills = s;
	}
	const handoff = get("handoff");
	if (handoff) {
		const h = readHandoff(ctx, handoff, `${path}.handoff`);
		if (h) node.handoff = h;
	}
	return node;
}

/** `reads:`: a list of addresses; a bad one is reported and left out. */
export function readReads(ctx: BuildContext, entry: Entry | undefined, path: string): AgentNode["reads"] {
	if (!entry) return [];
	const items = seqItems(entry.value);
	if (!items) {
		ctx.report("key-type", entry.range, `${path}.reads`, "`reads` must be a list of addresses like `[input, plan]`");
		return [];
	}
	const reads: AgentNode["reads"] = [];
	for (const item of items) {
		const address = ctx.address({ value: item, range: ctx.rangeOf(item, entry.range) }, `${path}.reads`);
		if (address) reads.push(address);
	}
	return reads;
}

/** `handoff: { watermark, continuations }` on a flow or a node. */
export function readHandoff(ctx: BuildContext, entry: Entry, path: string): HandoffDecl | undefined {
	const entries = ctx.entries(entry.value);
	if (!entries) {
		ctx.report("key-type", entry.range, path, "`handoff` is a mapping with `watermark` and/or `continuations`");
		return undefined;
	}
	ctx.unknownKeys(entries, ["watermark", "continuations"], path, "`handoff`");
	const decl: HandoffDecl = { range: entry.range };
	for (const e of entries) {
		if (e.key === "watermark") {
			const w = ctx.num(e, `${path}.watermark`, 0, 1);
			if (w) decl.watermark = w;
		} else if (e.key === "continuations") {
			const c = ctx.int(e, `${path}.continuations`, 0);
			if (c) decl.continuations = c;
		}
	}
	return decl;
}
