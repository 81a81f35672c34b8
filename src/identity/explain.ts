/**
 * Naming a difference between two identities of a visit: which parts differ, and each in a person's words,
 * so a miss is never "the cache key changed" but what changed:
 *
 *   changedParts(was, now)                      → ["read:look", "section"]
 *   explainChange(["read:look", "section"], { node: "answer", was, now })
 *                                               → "`## answer` changed; `look`'s output changed"
 */
import type { VisitIdentity } from "./identity.ts";

/** The parts of `now` whose digest differs from `was`'s, or that one of them lacks, in name order. */
export function changedParts(was: VisitIdentity, now: VisitIdentity): string[] {
	if (was.v !== now.v) return ["version"];
	const names = new Set([...Object.keys(was.parts), ...Object.keys(now.parts)]);
	return [...names].filter((n) => was.parts[n] !== now.parts[n]).sort(byWeight);
}

/** What the words of a difference are made with. */
export interface ChangeContext {
	/** The node's id: its section is `## <node>`. */
	node: string;
	was: VisitIdentity;
	now: VisitIdentity;
	/** The files that differ between the two trees, when git could name them. */
	treeFiles?: readonly string[];
}

/** Every changed part in words, joined: "`## answer` changed; input changed; 3 files of the tree changed: …". */
export function explainChange(parts: readonly string[], c: ChangeContext): string {
	const words: string[] = [];
	for (const p of parts) {
		const w = partWords(p, c);
		if (!words.includes(w)) words.push(w);
	}
	return words.join("; ");
}

/** One part's difference in words. */
export function partWords(part: string, c: ChangeContext): string {
	const agent = c.now.shown?.agent ?? c.was.shown?.agent;
	const of = (what: string) => (agent ? `\`${agent}\` ${what} changed` : `the agent's ${what} changed`);
	if (part.startsWith("read:")) {
		const address = part.slice(5);
		if (!(part in c.was.parts)) return `it now reads \`${address}\``;
		if (!(part in c.now.parts)) return `it no longer reads \`${address}\``;
		return readWords(address);
	}
	switch (part) {
		case "version":
			return "the earlier visit's identity was computed by another version of pi-flows";
		case "section":
			return `\`## ${c.node}\` changed`;
		case "closing":
			return "the task's closing changed (the ledger's open obligations, or what a handoff adds)";
		case "prompt":
			return of("prompt");
		case "tools":
			return c.now.shown?.toolsFrom === "node" ? "the node's tools changed" : of("tools");
		case "skills":
			return of("skills");
		case "answer":
			return "the output's type changed";
		case "model":
			return `model changed${arrow(c.was.shown?.model, c.now.shown?.model)}`;
		case "thinking":
			return `thinking changed${arrow(c.was.shown?.thinking, c.now.shown?.thinking)}`;
		case "settings":
			return "the flow's settings that reach the turn changed";
		case "members":
			return "the swarm's members changed";
		case "script":
			return "the check script changed";
		case "question":
			return "the question changed";
		case "message":
			return "the commit message changed";
		case "definition":
			return "the node's definition changed";
		case "tree":
			return treeWords(c);
		default:
			return `its \`${part}\` changed`;
	}
}

function readWords(address: string): string {
	if (address === "input") return "input changed";
	if (address.startsWith("input.")) return `input changed (\`${address}\`)`;
	if (address === "item" || address.startsWith("item.")) return `the item changed (\`${address}\`)`;
	if (address === "diff") return "the diff changed";
	const dot = address.indexOf(".");
	return dot < 0 ? `\`${address}\`'s output changed` : `\`${address}\` changed`;
}

function treeWords(c: ChangeContext): string {
	const was = c.was.shown?.tree;
	const now = c.now.shown?.tree;
	if (!was && now) return "the earlier visit saw no repository tree";
	if (was && !now) return "it no longer sees a repository tree";
	const files = c.treeFiles;
	if (!files?.length) return "the tree changed";
	const shown = files.slice(0, 3).join(", ");
	const more = files.length > 3 ? `, and ${files.length - 3} more` : "";
	return `${files.length} file${files.length === 1 ? "" : "s"} of the tree changed: ${shown}${more}`;
}

function arrow(was: string | undefined, now: string | undefined): string {
	return was && now && was !== now ? ` (${was} → ${now})` : "";
}

/** Changes a person acts on first: what they edited, then what flowed in, then the world. */
const WEIGHT = ["version", "section", "question", "script", "message", "definition", "read:", "closing"];

function byWeight(a: string, b: string): number {
	const w = (p: string) => {
		const i = WEIGHT.indexOf(p.startsWith("read:") ? "read:" : p);
		return i < 0 ? WEIGHT.length : i;
	};
	return w(a) - w(b) || a.localeCompare(b);
}
