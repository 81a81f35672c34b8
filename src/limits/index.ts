/**
 * The bounds of work on any input. A flow file is third-party content: a cloned repository (or a model
 * writing one) can make it as long as it likes, and checking happens before anything runs, in the CLI,
 * in pi and in the editor's language server. Each bound sits where a kind of input costs more than its
 * bytes: the expression grammar (ohm, about 50 µs a character, so a 200 KB condition took 29 s and
 * 2.2 GB), the chain grammar (the same, per step), and the checker per node. Past a bound the reader
 * stops with a positioned fault naming it (catalogue codes `expression-too-long`, `expression-budget`,
 * `chain-too-long`, `too-many-nodes`; `flow-too-large` is the file's own bound, in the reader).
 *
 * Example: `const bounds = fileBounds(report); bounds.expression("condition", text, range, path)` → true, until
 * the file's conditions pass 8,000 characters: then false, and `expression-budget` reported once.
 */
import type { Range } from "../text/index.ts";

/** The longest condition or address read. People write them in under 200 characters. */
export const MAX_EXPRESSION_CHARS = 1_000;

/**
 * The conditions of one file together, in characters: the bound of the grammar's work on a file whatever it
 * is split into (conditions cost it 50 to 110 µs a character). Real flows use a few hundred.
 */
export const MAX_CONDITION_TEXT = 8_000;

/**
 * The addresses of one file together (`reads:`, `map-from:`, ...), which cost the grammar about a fifth of
 * what conditions do: a 10,000-node pipeline reading one address a node uses four fifths of it.
 */
export const MAX_ADDRESS_TEXT = 60_000;

/** The most nodes a file holds, blocks and their bodies included; each costs the checker its scope. */
export const MAX_NODES = 10_000;

/** The longest chain text read (`@a -> @b ...`, with flags and goals): a few hundred steps. */
export const MAX_CHAIN_CHARS = 2_000;

/** The bounds past which the rest of a file is not read, so nothing after them is judged. */
export const STOPPED_READING: ReadonlySet<string> = new Set(["too-many-nodes", "expression-budget", "chain-too-long"]);

/** How a reader reports a bound it hit (the builder's own `report`). */
export type ReportBound = (
	code: "expression-budget" | "too-many-nodes",
	range: Range,
	path: string,
	message: string,
	details: { hint: string },
) => void;

/** What one file may still spend; a reader asks before each piece of work, and reports each bound once. */
export interface FileBounds {
	/**
	 * Counts a condition or an address about to be parsed; false (and `expression-budget`, the first time)
	 * once the file's conditions passed {@link MAX_CONDITION_TEXT}, or its addresses {@link MAX_ADDRESS_TEXT}.
	 * One too long by itself is the parser's own fault (`expression-too-long`) and is not counted.
	 */
	expression(kind: "condition" | "address", text: string, range: Range, path: string): boolean;
	/** Counts one node; false (and `too-many-nodes`, the first time) once the file passed {@link MAX_NODES}. */
	node(range: Range, path: string): boolean;
}

const SPLIT = "split the flow into flows that call each other (`flow:` nodes)";

/** Fresh bounds for one file. */
export function fileBounds(report: ReportBound): FileBounds {
	const chars = { condition: 0, address: 0 };
	const over = { condition: false, address: false, nodes: false };
	let nodes = 0;
	return {
		expression(kind, text, range, path) {
			if (text.length > MAX_EXPRESSION_CHARS) return true;
			chars[kind] += text.length;
			const bound = kind === "condition" ? MAX_CONDITION_TEXT : MAX_ADDRESS_TEXT;
			if (chars[kind] <= bound) return true;
			if (!over[kind]) {
				const message = `the ${kind}s of this file pass ${countWords(bound)} characters together here; the rest is not read`;
				report("expression-budget", range, path, message, { hint: SPLIT });
			}
			over[kind] = true;
			return false;
		},
		node(range, path) {
			if (++nodes <= MAX_NODES) return true;
			if (!over.nodes) {
				const message = `this file holds more than ${countWords(MAX_NODES)} nodes; the rest are not read`;
				report("too-many-nodes", range, path, message, { hint: SPLIT });
			}
			over.nodes = true;
			return false;
		},
	};
}

/**
 * A count as a person reads it: `8,000`. Grouped by hand: `toLocaleString` loads ICU's number formats on
 * first use, 0.1 s of a check that has 2 s for a hostile file.
 */
export function countWords(n: number): string {
	return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * A node flood's tail blanked before the YAML parse. The builder counts each item of `nodes:` before
 * reading it and stops at the item past {@link MAX_NODES} (nested bodies count too, so it may stop
 * sooner), so no item after the list's `MAX_NODES + 1`-th is ever read; yet yaml parsed all of them, a
 * second of a 1 MiB flood's check. When the top-level `nodes:` block list holds more items than that,
 * every character of the items after it becomes a space (line breaks kept): offsets, lines and columns
 * of everything else stay exactly where they were, keys after the list included, and the builder meets
 * the same items up to its bound. Anything else (a flow list, fewer items) is returned as it is.
 *
 *   floodCut("nodes:\n  - id: n0\n  ...")   // same length; items past the 10,001st are spaces
 */
export function floodCut(yaml: string): string {
	// Each item takes two characters at the least (`-` and its line break): a shorter text holds too few.
	if (yaml.length < (MAX_NODES + 2) * 2) return yaml;
	const list = /^nodes:[ \t]*(?:#.*)?\r?$/m.exec(yaml);
	if (!list) return yaml;
	let at = yaml.indexOf("\n", list.index);
	let indent = -1;
	let items = 0;
	let cutFrom = -1;
	while (at >= 0 && at < yaml.length) {
		const start = at + 1;
		const next = yaml.indexOf("\n", start);
		const end = next < 0 ? yaml.length : next;
		const line = yaml.slice(start, end);
		const spaces = line.length - line.trimStart().length;
		const text = line.trim();
		if (text && !text.startsWith("#")) {
			const item = text === "-" || text.startsWith("- ");
			if (indent < 0) {
				if (!item) return yaml;
				indent = spaces;
			}
			// The list ends at a line less indented than its items, or, for items at column 0, at one that is no item.
			if (spaces < indent || (spaces === indent && !item)) return cutFrom < 0 ? yaml : blank(yaml, cutFrom, start);
			if (spaces === indent && ++items === MAX_NODES + 2) cutFrom = start;
		}
		at = next;
	}
	return cutFrom < 0 ? yaml : blank(yaml, cutFrom, yaml.length);
}

function blank(text: string, from: number, to: number): string {
	return text.slice(0, from) + text.slice(from, to).replace(/[^\r\n]/g, " ") + text.slice(to);
}
