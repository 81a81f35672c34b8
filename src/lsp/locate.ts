/**
 * Places in the text as it is in the editor: the token under the cursor, each node's `id:` and each
 * `## <id>` heading. Found from the lines, not from the last parse, so "go to" lands right even on text
 * that no longer parses.
 */
import { frontmatterOf } from "./yaml-lines.ts";

/** A span on one line (0-based line, UTF-16 columns, end exclusive). */
export interface Span {
	line: number;
	start: number;
	end: number;
	text: string;
}

/** The run of characters matching `chars` around `character` on a line (possibly empty): the name a request is about. */
export function tokenAt(lineText: string, line: number, character: number, chars = /[A-Za-z0-9_.-]/): Span {
	let start = character;
	let end = character;
	while (start > 0 && chars.test(lineText[start - 1])) start--;
	while (end < lineText.length && chars.test(lineText[end])) end++;
	return { line, start, end, text: lineText.slice(start, end) };
}

const ID = /(?:^|[\s{,])id:[ \t]*(["']?)([A-Za-z_][A-Za-z0-9_]*)\1(?=[\s,}]|$)/g;

/** Each node's `id:` value in the frontmatter, by id (the first one when an id is written twice). */
export function idSpans(text: string): Map<string, Span> {
	const out = new Map<string, Span>();
	const fm = frontmatterOf(text);
	if (!fm) return out;
	for (let i = fm.start; i < fm.end; i++) {
		const l = fm.lines[i];
		if (l.blank) continue;
		for (const m of l.text.matchAll(ID)) {
			const id = m[2];
			const start = (m.index ?? 0) + m[0].length - id.length - m[1].length;
			if (!out.has(id)) out.set(id, { line: i, start, end: start + id.length, text: id });
		}
	}
	return out;
}

/** Each `## <id>` heading's text in the body, by id; headings inside fenced code are prose, not sections. */
export function headingSpans(text: string): Map<string, Span> {
	const out = new Map<string, Span>();
	const fm = frontmatterOf(text);
	if (!fm) return out;
	let fence: string | undefined;
	for (let i = fm.end + 1; i < fm.lines.length; i++) {
		const line = fm.lines[i].text;
		const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
		if (open) {
			if (!fence) fence = open[1];
			else if (open[1].startsWith(fence)) fence = undefined;
			continue;
		}
		const h = fence ? null : /^ {0,3}##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
		if (!h?.[1]) continue;
		const start = line.indexOf(h[1], line.indexOf("##") + 2);
		if (!out.has(h[1])) out.set(h[1], { line: i, start, end: start + h[1].length, text: h[1] });
	}
	return out;
}

/** The heading under the cursor, when the cursor's line is a `## <id>` heading of the body. */
export function headingAt(text: string, line: number): Span | undefined {
	for (const span of headingSpans(text).values()) if (span.line === line) return span;
	return undefined;
}
