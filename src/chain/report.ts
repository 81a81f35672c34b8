/**
 * Where a chain's faults go, and how a span of the chain text becomes a range in the user's file. Kept
 * in one place so every stage of the chain reader positions faults the same way.
 */
import { type Fault, type FaultCode, type FaultDetails, fault } from "../faults/index.ts";
import { type LineTable, lineTable, type Range } from "../text/index.ts";
import type { Span } from "./tokens.ts";
import type { ChainGlobals, ChainSource } from "./types.ts";

/** A chain text (or the separate globals string) with everything needed to place a span of it. */
export interface Source {
	text: string;
	file: string;
	path: string;
	range(span: Span): Range;
}

/** Resolves a source's options, defaulting to a line table of the text itself when the caller has none. */
export function source(text: string, options: Partial<ChainSource>, fallbackFile: string): Source {
	const base = options.baseOffset ?? 0;
	const file = options.file ?? fallbackFile;
	const path = options.path ?? "chain";
	const clamp = (n: number) => Math.max(0, Math.min(n, text.length));
	if (options.lineTable) {
		const table: LineTable = options.lineTable;
		return { text, file, path, range: (s) => table.range(base + clamp(s.start), base + clamp(s.end)) };
	}
	const own = lineTable(text);
	return {
		text,
		file,
		path,
		range: (s) => {
			const r = own.range(clamp(s.start), clamp(s.end));
			return { start: { ...r.start, offset: r.start.offset + base }, end: { ...r.end, offset: r.end.offset + base } };
		},
	};
}

/**
 * Where a flag was first given (the file, the flag's range and, when it takes one, its value's), in the chain or the
 * separate globals string: a repeat points back here ("first given here"), and the budget check reads them.
 */
export interface FlagFirstGiven {
	file: string;
	flag: Range;
	value?: Range;
}

/** What reading collects: faults, and the globals, which every source adds to. */
export interface Sink {
	faults: Fault[];
	globals: ChainGlobals;
	/** Where each chain-wide flag was first given, by name, across the chain and the separate globals string. */
	globalsFirstGiven: Map<string, FlagFirstGiven>;
}

/** A new, empty sink. */
export function sink(): Sink {
	return { faults: [], globals: {}, globalsFirstGiven: new Map() };
}

/** Adds one fault for a span of a source. */
export function report(
	into: Sink,
	src: Source,
	code: FaultCode,
	span: Span,
	path: string,
	message: string,
	details: FaultDetails = {},
): void {
	into.faults.push(fault(code, src.file, src.range(span), path, message, details));
}

/** The `related` entry that points back at an earlier place. */
export function firstHere(first: FlagFirstGiven, message = "First given here."): NonNullable<FaultDetails["related"]> {
	return [{ message, file: first.file, line: first.flag.start.line, column: first.flag.start.column }];
}

/** A token's source shortened for a message, so one long goal does not swamp the sentence. */
export function quote(text: string, max = 40): string {
	const flat = text.replace(/\s+/g, " ");
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
