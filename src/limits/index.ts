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
