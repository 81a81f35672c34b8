/**
 * Stage 1, read: a flow file's text → its frontmatter (a YAML document with source ranges) and its body's
 * `## <id>` sections, every piece with an absolute range in the file. Nothing is interpreted here.
 *
 *   input:  "---\nname: x\n...\n---\n\n## scout\nLook around.\n"
 *   output: { yaml: Document (offsets + base), sections: [{ id: "scout", text: "Look around." }] }
 *   faults: not-a-flow, yaml-syntax
 */
import type { Heading, Root } from "mdast";
import { toString as mdToString } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { type Document, parseDocument } from "yaml";
import { type Fault, fault } from "../../faults/index.ts";
import { FILE_START, type LineTable, lineTable, type Range } from "../../text/index.ts";
import { floodCut } from "../../limits/index.ts";
import { yamlMistake } from "./yaml-mistake.ts";

/** One `## <id>` section of the body. */
export interface Section {
	/** The heading's text, trimmed. */
	id: string;
	/** Where the heading's text is (what a fault about the heading points at). */
	headingRange: Range;
	/** The prose under the heading, trimmed; `###` and fenced code inside it are prose. */
	text: string;
	/** The whole section, heading included. */
	range: Range;
}

/** A flow file as read: raw structure with positions, not yet a flow. */
export interface FlowFile {
	file: string;
	text: string;
	table: LineTable;
	/** The frontmatter; offsets in it are relative to `yamlBase`. */
	yaml: Document;
	/** Absolute offset of the first character of the YAML text (the line after the opening `---`). */
	yamlBase: number;
	frontmatterRange: Range;
	sections: Section[];
	/** Body content before the first section, if any. */
	preamble?: Range;
	/**
	 * Headings that are not sections but whose text is a plain id (`# plan`, `### act`, `act` underlined):
	 * prose to the reader, and the likely reason a node's section is missing.
	 */
	otherHeadings: OtherHeading[];
}

/** A heading at another level than 2, or underlined (setext), whose text could be a node id. */
export interface OtherHeading {
	id: string;
	/** `# plan` is 1, `### act` is 3; an underline with `=` is 1, with `-` is 2. */
	level: number;
	setext: boolean;
	range: Range;
}

const processor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

/**
 * The largest flow file read. Real flows are a few kilobytes; a check has to answer quickly whatever it
 * is given, and the bound keeps even the YAML parser's worst case small.
 */
export const MAX_FLOW_BYTES = 1024 * 1024;

/** Reads a flow file. Never throws: a file that cannot be read as a flow yields faults. */
export function readFlow(text: string, file: string): { value?: FlowFile; faults: Fault[] } {
	if (text.length > MAX_FLOW_BYTES) {
		const size = `${Math.round(text.length / 1024).toLocaleString("en")} KiB`;
		return {
			faults: [
				fault(
					"flow-too-large",
					file,
					FILE_START,
					"",
					`the file is ${size}; a flow file is at most ${MAX_FLOW_BYTES / 1024 / 1024} MiB`,
					{ hint: "Move long reference text into a file the agents read." },
				),
			],
		};
	}
	const table = lineTable(text);
	// Markdown parsing is far from linear on some bodies (deep `> > >` quotes took minutes for 200 KiB), and
	// the body is prose the reader only splits at its `## ` headings. So remark reads the frontmatter and
	// each heading line, and a line scan that knows fences and comments finds the headings.
	const lines = linesOf(text);
	const fmLines = frontmatterEnd(lines);
	const head = fmLines === undefined ? text : text.slice(0, lines[fmLines].end);
	let first: Root["children"][number] | undefined = scannedFrontmatter(text, lines, fmLines, head);
	if (!first) {
		try {
			first = (processor.parse(head) as Root).children[0];
		} catch (error) {
			// micromark does not throw on any text we know of; if it ever does, the file still gets an answer.
			return {
				faults: [fault("not-a-flow", file, FILE_START, "", `the file cannot be read as Markdown: ${String(error)}`)],
			};
		}
	}
	if (fmLines === undefined || !first || first.type !== "yaml" || !first.position) {
		return {
			faults: [
				fault("not-a-flow", file, FILE_START, "", "a flow file starts with a `---` fenced YAML frontmatter", {
					hint: "Put `name`, `description`, `input` and `nodes` between two `---` lines at the top.",
				}),
			],
		};
	}
	const fmStart = first.position.start.offset ?? 0;
	const fmEnd = first.position.end.offset ?? fmStart;
	const newline = text.indexOf("\n", fmStart);
	const yamlBase = newline < 0 ? fmEnd : newline + 1;
	// A node flood's items past the builder's bound are blanked first: it never reads them (src/limits).
	const yaml = parseDocument(floodCut(first.value), { prettyErrors: false, uniqueKeys: true });
	const frontmatterRange = table.range(fmStart, fmEnd);
	const faults: Fault[] = [];
	if (yaml.errors.length > 0) {
		// Only the first: after a syntax error the rest of the document is the parser's guess.
		const error = yaml.errors[0];
		const start = yamlBase + error.pos[0];
		const end = Math.max(start + 1, yamlBase + error.pos[1]);
		const firstLine = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
		// The line a person must change, in plain words, when the layout tells it; else the parser's words.
		const mistake = yamlMistake(first.value, error.pos[0], error.code, table.point(yamlBase).line - 1);
		if (mistake)
			faults.push(
				fault(
					"yaml-syntax",
					file,
					table.range(yamlBase + mistake.start, Math.min(yamlBase + mistake.end, fmEnd)),
					"",
					mistake.message,
				),
			);
		else faults.push(fault("yaml-syntax", file, table.range(start, Math.min(end, fmEnd)), "", `${firstLine}`));
		return { faults };
	}
	const { sections, preamble, otherHeadings } = sectionsOf(lines, fmLines + 1, fmEnd, text, table);
	return {
		value: {
			file,
			text,
			table,
			yaml,
			yamlBase,
			frontmatterRange,
			sections,
			otherHeadings,
			...(preamble ? { preamble } : {}),
		},
		faults,
	};
}

interface Line {
	start: number;
	/** Where the line's text ends, before its line break. */
	textEnd: number;
	/** After its line break. */
	end: number;
	text: string;
}

function linesOf(text: string): Line[] {
	const lines: Line[] = [];
	let start = 0;
	while (start < text.length) {
		const nl = text.indexOf("\n", start);
		const end = nl < 0 ? text.length : nl + 1;
		const textEnd = nl < 0 ? text.length : nl > start && text[nl - 1] === "\r" ? nl - 1 : nl;
		lines.push({ start, textEnd, end, text: text.slice(start, textEnd) });
		start = end;
	}
	return lines;
}

/** The index of the line closing the frontmatter that opens the file, as remark-frontmatter reads it. */
function frontmatterEnd(lines: Line[]): number | undefined {
	if (!lines.length || !/^---[ \t]*$/.test(lines[0].text)) return undefined;
	for (let i = 1; i < lines.length; i++) if (/^---[ \t]*$/.test(lines[i].text)) return i;
	return undefined;
}

/**
 * The frontmatter node remark-frontmatter makes, from the line scan: the text between the fences, from the
 * opening fence to the end of the closing one. micromark spent 0.9 s on a 600 KB frontmatter (issue 28's
 * node floods) whose only product is this node. The scan agrees with micromark where lines end in `\n` or
 * `\r\n`; micromark also ends a line at a lone `\r`, so a head holding one goes through remark (undefined).
 */
function scannedFrontmatter(text: string, lines: Line[], fmLines: number | undefined, head: string) {
	if (fmLines === undefined || LONE_CR.test(head)) return undefined;
	const value = fmLines > 1 ? text.slice(lines[1].start, lines[fmLines - 1].textEnd) : "";
	const end = lines[fmLines].textEnd;
	return {
		type: "yaml" as const,
		value,
		position: { start: { line: 1, column: 1, offset: 0 }, end: { ...pointAt(lines, fmLines, end), offset: end } },
	};
}

const LONE_CR = /\r(?!\n)/;

/** The 1-based line and column of `offset` on line `i`. */
function pointAt(lines: Line[], i: number, offset: number) {
	return { line: i + 1, column: offset - lines[i].start + 1 };
}

const ATX2 = /^ {0,3}##(?:[ \t]|$)/;
const PLAIN_HEADING = /^( {0,3}##[ \t]+)([A-Za-z0-9_.-]+)[ \t]*(?:#+[ \t]*)?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The body's top-level `## ` headings, as CommonMark finds them for a flow's prose: not inside a fenced
 * code block (a fence left open runs to the end) nor an HTML comment. Setext underlines are not
 * sections: a section is an explicit `## <id>`.
 */
function headingLines(lines: Line[], from: number, others: OtherHeading[], table: LineTable): number[] {
	const found: number[] = [];
	let fence: { char: string; length: number } | undefined;
	let comment = false;
	for (let i = from; i < lines.length; i++) {
		const t = lines[i].text;
		if (fence) {
			const close = FENCE.exec(t);
			if (close && close[1][0] === fence.char && close[1].length >= fence.length && !close[2].trim()) fence = undefined;
			continue;
		}
		if (comment) {
			if (t.includes("-->")) comment = false;
			continue;
		}
		const open = FENCE.exec(t);
		if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
			fence = { char: open[1][0], length: open[1].length };
			continue;
		}
		if (/^ {0,3}<!--/.test(t)) {
			comment = !t.slice(t.indexOf("<!--") + 4).includes("-->");
			continue;
		}
		if (ATX2.test(t)) {
			found.push(i);
			continue;
		}
		const other = otherHeading(lines, i);
		if (other)
			others.push({
				...other,
				range: table.range(lines[i].start + other.at, lines[i].start + other.at + other.id.length),
			});
	}
	return found;
}

const ATX_OTHER = /^( {0,3}(#|#{3,6})[ \t]+)([A-Za-z0-9_.-]+)[ \t]*(?:#+[ \t]*)?$/;
const SETEXT_TEXT = /^( {0,3})([A-Za-z0-9_.-]+)[ \t]*$/;
const UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;

/** Line `i` as a heading of another level whose whole text is a plain id, with the id's column. */
function otherHeading(
	lines: Line[],
	i: number,
): { id: string; level: number; setext: boolean; at: number } | undefined {
	const t = lines[i].text;
	const atx = ATX_OTHER.exec(t);
	if (atx) return { id: atx[3], level: atx[2].length, setext: false, at: atx[1].length };
	// An underline makes the line above a heading only when that line starts a paragraph.
	const next = lines[i + 1]?.text;
	const above = lines[i - 1]?.text;
	const word = SETEXT_TEXT.exec(t);
	const under = next === undefined ? null : UNDERLINE.exec(next);
	if (word && under && (above === undefined || above.trim() === ""))
		return { id: word[2], level: under[1][0] === "=" ? 1 : 2, setext: true, at: word[1].length };
	return undefined;
}

/** One heading line read by remark, for its text as Markdown renders it (`## \`look\`` is `look`). */
function headingOf(line: Line): { id: string; idStart: number; idEnd: number } {
	// A plain id needs no Markdown: the common case, read without building a tree.
	const plain = PLAIN_HEADING.exec(line.text);
	if (plain) {
		const idStart = line.start + plain[1].length;
		return { id: plain[2], idStart, idEnd: idStart + plain[2].length };
	}
	const node = (processor.parse(line.text) as Root).children[0] as Heading | undefined;
	const kids = node?.type === "heading" ? node.children : [];
	if (!node || kids.length === 0) return { id: "", idStart: line.textEnd, idEnd: line.textEnd };
	return {
		id: mdToString(node).trim(),
		idStart: line.start + (kids[0].position?.start.offset ?? 0),
		idEnd: line.start + (kids[kids.length - 1].position?.end.offset ?? 0),
	};
}

function sectionsOf(
	lines: Line[],
	from: number,
	bodyStart: number,
	text: string,
	table: LineTable,
): { sections: Section[]; preamble?: Range; otherHeadings: OtherHeading[] } {
	const sections: Section[] = [];
	const otherHeadings: OtherHeading[] = [];
	const headings = headingLines(lines, from, otherHeadings, table);
	const firstHeadingOffset = headings.length ? lines[headings[0]].start : text.length;
	const before = text.slice(bodyStart, firstHeadingOffset);
	let preamble: Range | undefined;
	if (before.trim()) {
		const start = bodyStart + (before.length - before.trimStart().length);
		const end = bodyStart + before.trimEnd().length;
		preamble = table.range(start, end);
	}
	for (let i = 0; i < headings.length; i++) {
		const line = lines[headings[i]];
		const end = headings[i + 1] !== undefined ? lines[headings[i + 1]].start : text.length;
		const { id, idStart, idEnd } = headingOf(line);
		sections.push({
			id,
			headingRange: table.range(idStart, idEnd),
			text: text.slice(line.textEnd, end).trim(),
			range: table.range(line.start, end),
		});
	}
	return { sections, otherHeadings, ...(preamble ? { preamble } : {}) };
}
