/**
 * Keys read the same way wherever they are written: `reads:` (agents, asks, swarms) and `handoff:` (a flow
 * or an agent node).
 */
import type { AgentNode, HandoffDecl } from "../ast.ts";
import { type BuildContext, type Entry, seqItems } from "./context.ts";

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
