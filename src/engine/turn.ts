/**
 * How a turn's task is composed: the node's section, then each read under a heading `## <address as
 * written>` (text raw, anything else as JSON; a failed node as `{ ok: false, error }`; an absent optional
 * field keeps its heading with an empty body), then the closing part of typed and review turns.
 */
import type { Address } from "../language/ast.ts";
import type { Value } from "../language/types/index.ts";
import { evaluate } from "./evaluate.ts";
import { type Frame, frameCwd, lookupIn, type Reading } from "./frames.ts";
import type { World } from "./world.ts";

/** The text under one read's heading. */
export function renderRead(address: Address, frame: Frame, reading: Reading, diff?: string): string {
	if (address.root === "diff") return diff ?? "";
	const lookup = lookupIn(frame, reading);
	const whole = lookup(
		address.expr.segments.map((s) => s.name),
		address.expr,
	);
	if (whole.ok) return show(whole.value);
	// A read of a failed node shows why it failed instead of nothing (the same binding, its record's parts).
	const record = lookup([address.root, "ok"], address.expr);
	if (record.ok && record.value === false && address.fields.length === 0) {
		const error = lookup([address.root, "error"], address.expr);
		return show({ ok: false, ...(error.ok ? { error: error.value } : {}) });
	}
	return "";
}

function show(v: Value): string {
	return typeof v === "string" ? v : `\`\`\`json\n${JSON.stringify(v, null, 2)}\n\`\`\``;
}

/** The task of one agent turn. */
export function composeTask(
	section: string,
	reads: readonly Address[],
	frame: Frame,
	reading: Reading,
	closing?: string,
	diff?: string,
): string {
	return taskOf(section, renderedReads(reads, frame, reading, diff), closing);
}

/** Each read's address as written and the text under its heading, rendered once for the task and the identity. */
export function renderedReads(
	reads: readonly Address[],
	frame: Frame,
	reading: Reading,
	diff?: string,
): { address: string; text: string }[] {
	return reads.map((r) => ({ address: r.text, text: renderRead(r, frame, reading, diff) }));
}

/** The task of one agent turn from its reads as rendered. */
export function taskOf(section: string, reads: readonly { address: string; text: string }[], closing?: string): string {
	const parts = [section.trim()];
	for (const read of reads) parts.push(`## ${read.address}\n\n${read.text}`.trimEnd());
	if (closing) parts.push(closing);
	return `${parts.join("\n\n")}\n`;
}

/** Evaluates an address to a value, or says why it cannot be read. */
export function valueAt(address: Address, frame: Frame, reading: Reading) {
	return evaluate(address.expr, lookupIn(frame, reading));
}

/**
 * What the tree changed, for a node that reads `diff` (the agent visit's rule, for questions and swarms too);
 * undefined, and nothing to wait for, when it reads none.
 */
export function diffFor(world: World, reads: readonly Address[], frame: Frame): Promise<string> | undefined {
	return reads.some((r) => r.root === "diff") ? world.diff(frameCwd(frame, world)) : undefined;
}
