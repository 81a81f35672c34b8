/**
 * One position format for the whole product, unist's: 1-based line and column, 0-based offset in UTF-16
 * code units, end exclusive. Every parsed node carries a {@link Range}; sub-parsers (the frontmatter YAML,
 * each ohm expression) add their base offset so positions stay absolute in the flow file.
 */
import { location } from "vfile-location";

/** A place in a file. */
export interface Point {
	/** 1-based line. */
	line: number;
	/** 1-based column, in UTF-16 code units. */
	column: number;
	/** 0-based offset from the start of the file. */
	offset: number;
}

/** A span of a file; `end` is the first character after it. */
export interface Range {
	start: Point;
	end: Point;
}

/**
 * Offset ↔ line/column over one file, built once per file (vfile-location bisects line starts), so no
 * stage counts lines by hand.
 */
export interface LineTable {
	point(offset: number): Point;
	range(startOffset: number, endOffset: number): Range;
	offset(line: number, column: number): number;
	readonly text: string;
}

/**
 * Builds the line table of a file's text. A class rather than closures over the text: a run checks its flow
 * once and every later run builds a new table, and V8 drops the optimized code of closures whose instances
 * died at its next full collection, so closures would be compiled again for every file.
 */
export function lineTable(text: string): LineTable {
	return new Lines(text);
}

class Lines implements LineTable {
	readonly text: string;
	readonly #loc: ReturnType<typeof location>;
	constructor(text: string) {
		this.text = text;
		this.#loc = location(text);
	}
	point(offset: number): Point {
		const clamped = Math.max(0, Math.min(offset, this.text.length));
		const p = this.#loc.toPoint(clamped);
		if (p && p.line !== undefined && p.column !== undefined) return { line: p.line, column: p.column, offset: clamped };
		// vfile-location answers undefined only at the very end of a file that ends without a newline.
		const before = clamped > 0 ? this.#loc.toPoint(clamped - 1) : undefined;
		if (before?.line !== undefined && before.column !== undefined) {
			return { line: before.line, column: before.column + 1, offset: clamped };
		}
		return { line: 1, column: 1, offset: clamped };
	}
	range(s: number, e: number): Range {
		return { start: this.point(s), end: this.point(Math.max(s, e)) };
	}
	offset(line: number, column: number): number {
		return this.#loc.toOffset({ line, column }) ?? this.text.length;
	}
}

/** The range that covers both. */
export function cover(a: Range, b: Range): Range {
	return {
		start: a.start.offset <= b.start.offset ? a.start : b.start,
		end: a.end.offset >= b.end.offset ? a.end : b.end,
	};
}

/** A zero-width range at the start of a file, for faults about a file as a whole. */
export const FILE_START: Range = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };
