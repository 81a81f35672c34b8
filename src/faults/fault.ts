/**
 * Faults are data: a stable code from one catalogue, a file, a 1-based line and column range, the node path
 * and one sentence. Every stage reports them instead of throwing, and they convert one-to-one into
 * `file:line:col: code: message` lines, JSON, vfile messages and LSP diagnostics.
 */
import type { Range } from "../text/index.ts";
import type { FaultCode } from "./catalogue.ts";

/** Something that stops a flow (or a script, or a chain) from being run, with where it is. */
export interface Fault {
	/** Stable code from {@link FAULT_CATALOGUE}; tools and tests rely on it, never on the message. */
	code: FaultCode;
	/** The file, as it was given to the reader. */
	file: string;
	/** 1-based start line. */
	line: number;
	/** 1-based start column. */
	column: number;
	endLine: number;
	endColumn: number;
	/** Offsets of the range, for editors and for sorting. */
	offset: number;
	endOffset: number;
	/** Node path through the enclosing nodes plus the offending key, e.g. `deliver/work/code.retry`. */
	path: string;
	/** One sentence. */
	message: string;
	/** How to fix it, when the message alone does not say. */
	hint?: string;
	/** Acceptable values, e.g. the did-you-mean candidate. */
	expected?: string[];
	/** Other places that explain this one ("first defined here"). */
	related?: { message: string; file: string; line: number; column: number }[];
	/**
	 * A `call-cycle`'s ring of flow names, first and last the same (`a → b → a`): a caller judging this
	 * flow as its callee turns the ring to start at itself from this, never from the message's words.
	 */
	cycle?: string[];
}

/** What a fault needs beyond its code and where it is. */
export interface FaultDetails {
	hint?: string;
	expected?: string[];
	related?: Fault["related"];
	cycle?: string[];
}

/** Builds a fault from a code, a file, a range and a node path. */
export function fault(
	code: FaultCode,
	file: string,
	range: Range,
	path: string,
	message: string,
	details: FaultDetails = {},
): Fault {
	return {
		code,
		file,
		line: range.start.line,
		column: range.start.column,
		endLine: range.end.line,
		endColumn: range.end.column,
		offset: range.start.offset,
		endOffset: range.end.offset,
		path,
		message,
		...(details.hint ? { hint: details.hint } : {}),
		...(details.expected?.length ? { expected: details.expected } : {}),
		...(details.related?.length ? { related: details.related } : {}),
		...(details.cycle?.length ? { cycle: details.cycle } : {}),
	};
}

/** File order, then code, so every report reads top to bottom and is stable. */
export function sortFaults(faults: readonly Fault[]): Fault[] {
	return [...faults].sort(
		(a, b) =>
			a.file.localeCompare(b.file) || a.offset - b.offset || a.endOffset - b.endOffset || a.code.localeCompare(b.code),
	);
}

/** `path:line:col: code: message` — the line compilers print, which editors and terminals link. */
export function formatFault(f: Fault, displayFile: string = f.file): string {
	const at = f.path ? ` (${f.path})` : "";
	return `${displayFile}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}${at}`;
}

/**
 * The message and its hint as one text. Messages are phrases (`no agent \`planer\``) and hints are advice;
 * run together they need a stop between them: `… has no \`## review\` section. Add one saying …`.
 */
export function faultText(f: Pick<Fault, "message" | "hint">): string {
	if (!f.hint) return f.message;
	const stop = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
	return `${stop(f.message)} ${stop(f.hint.charAt(0).toUpperCase() + f.hint.slice(1))}`;
}

/** "did you mean X?" when there is an X, else "". */
export function didYouMean(candidate: string | undefined): string {
	return candidate ? ` Did you mean \`${candidate}\`?` : "";
}
