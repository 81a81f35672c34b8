/**
 * Stage 1, read: a flow file's text → its frontmatter (a YAML document with source ranges) and its body's
 * `## <id>` sections, every piece with an absolute range in the file. Nothing is interpreted here.
 *
 *   input:  "---\nname: x\n...\n---\n\n## scout\nLook around.\n"
 *   output: { yaml: Document (offsets + base), sections: [{ id: "scout", text: "Look around." }] }
 *   faults: not-a-flow, yaml-syntax
 */
import type { Heading, Root, RootContent } from "mdast";
import { toString as mdToString } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { type Document, parseDocument } from "yaml";
import { type Fault, fault } from "../../faults/index.ts";
import { FILE_START, type LineTable, lineTable, type Range } from "../../text/index.ts";

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
}

const processor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

/**
 * The largest flow file read. Real flows are a few kilobytes; Markdown parsing is far from linear on
 * some shapes (a long checklist, deep quotes), and a check has to answer quickly whatever it is given.
 */
export const MAX_FLOW_BYTES = 256 * 1024;

/** Reads a flow file. Never throws: a file that cannot be read as a flow yields faults. */
export function readFlow(text: string, file: string): { value?: FlowFile; faults: Fault[] } {
	if (text.length > MAX_FLOW_BYTES) {
		const size = `${Math.round(text.length / 1024).toLocaleString("en")} KiB`;
		return { faults: [fault("flow-too-large", file, FILE_START, "", `the file is ${size}; a flow file is at most ${MAX_FLOW_BYTES / 1024} KiB`, { hint: "Move long reference text into a file the agents read." })] };
	}
	const table = lineTable(text);
	let root: Root;
	try {
		root = processor.parse(text) as Root;
	} catch (error) {
		// micromark does not throw on any text we know of; if it ever does, the file still gets an answer.
		return { faults: [fault("not-a-flow", file, FILE_START, "", `the file cannot be read as Markdown: ${String(error)}`)] };
	}
	const first = root.children[0];
	if (!first || first.type !== "yaml" || !first.position) {
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
	const yaml = parseDocument(first.value, { prettyErrors: false, uniqueKeys: true });
	const frontmatterRange = table.range(fmStart, fmEnd);
	const faults: Fault[] = [];
	if (yaml.errors.length > 0) {
		// Only the first: after a syntax error the rest of the document is the parser's guess.
		const error = yaml.errors[0];
		const start = yamlBase + error.pos[0];
		const end = Math.max(start + 1, yamlBase + error.pos[1]);
		const firstLine = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
		faults.push(fault("yaml-syntax", file, table.range(start, Math.min(end, fmEnd)), "", `${firstLine}`));
		return { faults };
	}
	const { sections, preamble } = sectionsOf(root.children.slice(1), text, table);
	return { value: { file, text, table, yaml, yamlBase, frontmatterRange, sections, ...(preamble ? { preamble } : {}) }, faults };
}

function sectionsOf(nodes: RootContent[], text: string, table: LineTable): { sections: Section[]; preamble?: Range } {
	const sections: Section[] = [];
	let preamble: Range | undefined;
	const headings = nodes.filter((n): n is Heading => n.type === "heading" && n.depth === 2);
	const firstHeadingOffset = headings[0]?.position?.start.offset ?? text.length;
	const before = nodes.filter((n) => (n.position?.start.offset ?? 0) < firstHeadingOffset);
	if (before.length > 0) {
		const start = before[0].position?.start.offset ?? 0;
		const end = before[before.length - 1].position?.end.offset ?? start;
		preamble = table.range(start, end);
	}
	for (let i = 0; i < headings.length; i++) {
		const heading = headings[i];
		const start = heading.position?.start.offset ?? 0;
		const headingEnd = heading.position?.end.offset ?? start;
		const end = headings[i + 1]?.position?.start.offset ?? text.length;
		const kids = heading.children;
		const idStart = kids[0]?.position?.start.offset ?? headingEnd;
		const idEnd = kids[kids.length - 1]?.position?.end.offset ?? headingEnd;
		sections.push({
			id: mdToString(heading).trim(),
			headingRange: table.range(idStart, idEnd),
			text: text.slice(headingEnd, end).trim(),
			range: table.range(start, end),
		});
	}
	return { sections, ...(preamble ? { preamble } : {}) };
}
