/**
 * Judges every position an answer carries, against a line table of our own. The product's line table is
 * deliberately not reused: a fault whose line and column came from the same code that checks them would
 * agree with itself however wrong both were.
 */
import { FAULT_CODES, type Fault } from "../src/faults/index.ts";
import type { Range } from "../src/text/index.ts";

const CODES: ReadonlySet<string> = new Set(FAULT_CODES);

/** Lines as editors count them: `\r\n`, a lone `\r` and a lone `\n` each end one (unist's rule). */
export interface Lines {
	readonly text: string;
	/** Offset of each line's first character; `starts[0]` is 0. */
	readonly starts: readonly number[];
}

export function linesOf(text: string): Lines {
	const starts = [0];
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === 10) starts.push(i + 1);
		else if (c === 13) {
			if (text.charCodeAt(i + 1) === 10) i++;
			starts.push(i + 1);
		}
	}
	return { text, starts };
}

/** 1-based line and column of an offset, or undefined when the offset is not in the text at all. */
export function pointOf(lines: Lines, offset: number): { line: number; column: number } | undefined {
	if (!Number.isInteger(offset) || offset < 0 || offset > lines.text.length) return undefined;
	let lo = 0;
	let hi = lines.starts.length - 1;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if (lines.starts[mid] <= offset) lo = mid;
		else hi = mid - 1;
	}
	return { line: lo + 1, column: offset - lines.starts[lo] + 1 };
}

/** The window of the file a sub-parser was given: faults about it must stay inside. */
export interface Window {
	lines: Lines;
	file: string;
	/** First offset of the parsed text in the file. */
	from: number;
	/** First offset after it. */
	to: number;
}

/** The whole file as the window. */
export function wholeFile(text: string, file: string): Window {
	return { lines: linesOf(text), file, from: 0, to: text.length };
}

function samePoint(lines: Lines, offset: number, line: number, column: number): string | undefined {
	const p = pointOf(lines, offset);
	if (!p) return `offset ${offset} is outside the text (length ${lines.text.length})`;
	if (p.line !== line || p.column !== column)
		return `offset ${offset} is ${p.line}:${p.column}, but the answer says ${line}:${column}`;
	return undefined;
}

/** What is wrong with one range, or undefined. */
export function rangeProblem(range: Range, w: Window, what: string): string | undefined {
	const { start, end } = range;
	if (start.offset < w.from || end.offset > w.to || start.offset > end.offset) {
		return `${what}: range ${start.offset}-${end.offset} is not inside ${w.from}-${w.to}`;
	}
	const a = samePoint(w.lines, start.offset, start.line, start.column);
	if (a) return `${what} start: ${a}`;
	const b = samePoint(w.lines, end.offset, end.line, end.column);
	if (b) return `${what} end: ${b}`;
	return undefined;
}

/**
 * What is wrong with a list of faults: an unknown code, no message, a file other than the one given, or
 * a range outside the window or whose line and column disagree with its offset.
 */
export function faultProblem(faults: readonly Fault[], w: Window): string | undefined {
	for (const f of faults) {
		const name = `${f.code} "${f.message}"`;
		if (!CODES.has(f.code)) return `${name}: the code is not in the catalogue`;
		if (typeof f.message !== "string" || f.message.trim() === "") return `${f.code}: the message is empty`;
		if (f.file !== w.file) return `${name}: names the file ${JSON.stringify(f.file)}, not ${JSON.stringify(w.file)}`;
		const range: Range = {
			start: { line: f.line, column: f.column, offset: f.offset },
			end: { line: f.endLine, column: f.endColumn, offset: f.endOffset },
		};
		const bad = rangeProblem(range, w, name);
		if (bad) return bad;
		for (const r of f.related ?? []) {
			if (r.file !== w.file) continue;
			const line = w.lines.starts[r.line - 1];
			// The last offset of a line is its line break's; the last line ends at the end of the text.
			const last = r.line < w.lines.starts.length ? w.lines.starts[r.line] - 1 : w.lines.text.length;
			if (line === undefined || r.column < 1 || line + r.column - 1 > last) {
				return `${name}: related ${r.line}:${r.column} is not a place in the text`;
			}
		}
	}
	return undefined;
}

/** A value or at least one fault, never neither: a silent nothing is as bad as a crash to its caller. */
export function answerProblem(result: { value?: unknown; faults: readonly Fault[] }): string | undefined {
	if (result.value === undefined && result.faults.length === 0) return "no value and no fault";
	return undefined;
}
