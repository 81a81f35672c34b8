/**
 * Flow collections on one line (`reads: [input, pl`, `nodes: [{ id: a, agent: sc`): what is open at the
 * cursor, as the same frames the block structure gives, so one classifier reads both.
 *
 *   input:  "[{ id: look, agent: scout }, { id: answer, reads: [input, lo" (the value after `nodes:`)
 *   output: frames [item (prevId look), key reads, item]
 */
import type { Frame, Mapping } from "./yaml-lines.ts";

interface Open {
	ch: "[" | "{";
	column: number;
	/** Where the current entry starts (after the bracket or the last comma). */
	entry: number;
	/** Inside `{`: the key whose value the scan is in. */
	key?: string;
	/** Inside `[`: the id of the mapping that ended last, for "what ran before this node". */
	lastId?: string;
}

/** The keys of the `{ ... }` that opens at `column`, up to its matching brace or the end of the line. */
export function inlineMapping(text: string, column: number): Mapping {
	const keys: string[] = [];
	let id: string | undefined;
	let depth = 0;
	let entry = column + 1;
	for (let i = column; i < text.length; i++) {
		const ch = text[i];
		if (ch === '"' || ch === "'") {
			i = skipQuoted(text, i);
			continue;
		}
		if (ch === "{" || ch === "[") depth++;
		else if (ch === "}" || ch === "]") {
			depth--;
			if (depth === 0) break;
		} else if (depth === 1 && ch === ",") entry = i + 1;
		else if (depth === 1 && ch === ":" && /[\s,}\]]/.test(text[i + 1] ?? " ")) {
			const key = text.slice(entry, i).trim();
			keys.push(key);
			const value = /^\s*([^,}\]\s]+)/.exec(text.slice(i + 1));
			if (key === "id" && value) id = value[1].replace(/^(["'])(.*)\1$/, "$2");
			entry = text.length;
		}
	}
	return { keys, ...(id ? { id } : {}) };
}

/** Index of the closing quote of the string opening at `at` (or the end of the line when it is open). */
function skipQuoted(text: string, at: number): number {
	const quote = text[at];
	for (let i = at + 1; i < text.length; i++) {
		if (quote === '"' && text[i] === "\\") i++;
		else if (text[i] === quote) {
			if (quote === "'" && text[i + 1] === "'") i++;
			else return i;
		}
	}
	return text.length;
}

/**
 * Frames for the flow collections open between `from` and `to` on a line; undefined when the value there
 * is not a flow collection. A `{` that opens the value belongs to the key (or list item) written before it,
 * which already has its frame.
 */
export function inlineFrames(text: string, from: number, to: number, line: number): Frame[] | undefined {
	const first = text.slice(from, to).trimStart()[0];
	if (first !== "[" && first !== "{") return undefined;
	const stack: Open[] = [];
	for (let i = from; i < to; i++) {
		const ch = text[i];
		const top = stack[stack.length - 1];
		if (ch === '"' || ch === "'") {
			i = skipQuoted(text, i);
			continue;
		}
		if (ch === "[" || ch === "{") stack.push({ ch, column: i, entry: i + 1 });
		else if (ch === "]" || ch === "}") {
			const closed = stack.pop();
			const parent = stack[stack.length - 1];
			if (closed?.ch === "{" && parent?.ch === "[") {
				const id = inlineMapping(text, closed.column).id;
				if (id) parent.lastId = id;
				else delete parent.lastId;
			}
		} else if (ch === "," && top) {
			delete top.key;
			top.entry = i + 1;
		} else if (ch === ":" && top?.ch === "{" && top.key === undefined && /[\s,}\]]/.test(text[i + 1] ?? " ")) {
			top.key = text.slice(top.entry, i).trim();
		}
	}
	if (stack.length === 0) return undefined;
	const frames: Frame[] = [];
	for (const [i, open] of stack.entries()) {
		const parent = stack[i - 1];
		if (open.ch === "{" && parent?.ch === "[") {
			const prevId = parent.lastId;
			frames.push({
				kind: "item",
				line,
				column: open.column,
				map: inlineMapping(text, open.column),
				...(prevId ? { prevId } : {}),
			});
		}
		if (open.ch === "[" && parent?.ch === "[")
			frames.push({ kind: "item", line, column: open.column, map: { keys: [] } });
		if (open.key !== undefined) frames.push({ kind: "key", key: open.key, line, column: open.entry });
	}
	const last = stack[stack.length - 1];
	// Inside `[` with no mapping open, the cursor is on a scalar item of that list.
	if (last.ch === "[") frames.push({ kind: "item", line, column: last.entry, map: { keys: [] } });
	return frames;
}
