/**
 * How a turn's task is composed: the node's section, then each read under a heading `## <address as
 * written>`, text raw and anything else as JSON. Prose therefore names the heading it means ("the report
 * under `scout`"), never "below".
 */
import type { Address } from "../ast.ts";

/** What an ended node left for later nodes to read. */
export interface Ended {
	ok: boolean;
	output: string;
	error?: { kind: string; message: string };
}

/** The value an address reads, as the text that goes under its heading. */
export function readValue(address: Address, input: string, ended: ReadonlyMap<string, Ended>): string {
	if (address.root === "input") return input;
	const node = ended.get(address.root);
	if (!node) return "";
	const [field, sub] = address.fields;
	if (field === undefined) return node.ok ? node.output : json({ ok: false, error: node.error });
	if (field === "ok") return json(node.ok);
	if (field === "output") return node.output;
	if (sub) return node.error ? String(node.error[sub as "kind" | "message"]) : "";
	return json(node.error ?? null);
}

/** The task text of one agent turn. */
export function composeTask(section: string, reads: readonly Address[], input: string, ended: ReadonlyMap<string, Ended>): string {
	const parts = [section.trim()];
	for (const read of reads) parts.push(`## ${read.text}\n\n${readValue(read, input, ended)}`);
	return `${parts.join("\n\n")}\n`;
}

function json(value: unknown): string {
	return `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
}
