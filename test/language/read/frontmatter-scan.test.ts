/**
 * The reader finds the frontmatter by a line scan instead of running micromark over it (a 600 KB
 * frontmatter took micromark 0.9 s, issue 28). The scan must give exactly the node remark-frontmatter
 * gives: the same YAML text, the same start and end, so every fault inside the frontmatter keeps its
 * position. Each case is checked against remark itself.
 */
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readFlow } from "../../../src/language/read/index.ts";

const remark = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

const BODY = "## a\nLook.\n";
const CASES: Record<string, string> = {
	LF: `---\nname: x\ndescription: d\n---\n${BODY}`,
	CRLF: `---\r\nname: x\r\ndescription: d\r\n---\r\n${BODY}`,
	"fences with trailing blanks": `--- \t\nname: x\n---  \n${BODY}`,
	empty: `---\n---\n${BODY}`,
	"one blank line": `---\n\n---\n${BODY}`,
	"blank lines before the close": `---\nname: x\n\n\n---\n${BODY}`,
	"a block scalar holding ---x": `---\nname: x\ndescription: |\n  ---x\n---\n${BODY}`,
	"no newline after the close": "---\nname: x\n---",
	"a lone CR before a fence": `---\nname: x\r---\ndescription: d\n---\n${BODY}`,
	"mixed endings": `---\r\nname: x\ndescription: d\r\n---\n${BODY}`,
};

describe("the frontmatter scan", () => {
	for (const [name, text] of Object.entries(CASES)) {
		it(`gives remark's frontmatter node: ${name}`, () => {
			const node = remark.parse(text).children[0];
			expect(node?.type).toBe("yaml");
			if (node?.type !== "yaml" || !node.position) throw new Error("remark found no frontmatter");
			const read = readFlow(text, "x.md");
			expect(read.value, JSON.stringify(read.faults)).toBeDefined();
			if (!read.value) return;
			// The YAML parsed is remark's text: the same values, the same source ranges inside it.
			const expected = parseDocument(node.value, { prettyErrors: false, uniqueKeys: true });
			expect(read.value.yaml.toJSON()).toEqual(expected.toJSON());
			expect(read.value.yaml.range).toEqual(expected.range);
			const { start, end } = read.value.frontmatterRange;
			expect([start.line, start.column, end.line, end.column]).toEqual([
				node.position.start.line,
				node.position.start.column,
				node.position.end.line,
				node.position.end.column,
			]);
		});
	}
});
