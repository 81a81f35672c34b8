/**
 * Where a piece of text sits in its flow file. Sub-parsers see only the text of one YAML value, yet every
 * range they produce must be absolute in the file (style rule 4), so they add `base` to each offset, as
 * Shopify's `toCST` adds its offset.
 */
import type { LineTable, Range } from "../../text/index.ts";

/** The place of a parsed text in its file. */
export interface SourceAt {
	/** The file, as faults name it. */
	file: string;
	/**
	 * Absolute offset of the text's first character in the file. Only meaningful when the YAML scalar's
	 * source equals its value (plain single-line, or quoted without escapes); see {@link scalarBase}.
	 */
	base: number;
	/** The line table of the whole file. */
	table: LineTable;
	/** Node path plus key, e.g. `deliver.loop`, for the faults. */
	path: string;
	/**
	 * The whole scalar's range, for a value whose source differs from its text (escapes, folded lines).
	 * When given, every range is this one: pointing inside would point at the wrong column (style rule 5).
	 * Default: absent, ranges are exact.
	 */
	whole?: Range;
}

/** The absolute range of `[start, end)` in the parsed text. */
export function rangeIn(at: SourceAt, start: number, end: number): Range {
	if (at.whole) return at.whole;
	return at.table.range(at.base + start, at.base + end);
}
