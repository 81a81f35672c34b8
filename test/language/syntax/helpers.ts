// Shared by the syntax and type tests: a text standing alone as a file, and a flow file whose frontmatter
// holds the text, so tests can prove positions are absolute in the file.
import { isMap, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { SourceAt } from "../../../src/language/syntax/index.ts";
import { lineTable } from "../../../src/text/index.ts";

/** `text` as a whole file of its own: base 0. */
export function alone(text: string, path = "gate.when"): SourceAt {
	return { file: "flow.md", base: 0, table: lineTable(text), path };
}

/** A flow file with `yaml` as its frontmatter, the YAML parsed with the offsets the reader would give. */
export function flowFile(yaml: string) {
	const text = `---\n${yaml}---\n\n## plan\nPlan it.\n`;
	const yamlBase = 4;
	const doc = parseDocument(text.slice(yamlBase, text.indexOf("\n---\n", 3) + 1), { lineCounter: new LineCounter() });
	if (doc.errors.length) throw new Error(doc.errors[0].message);
	return { text, yamlBase, doc, table: lineTable(text) };
}

/** The YAML node at a path of keys and indexes, e.g. `["nodes", 0, "loop"]`. */
export function nodeAt(root: unknown, path: readonly (string | number)[]): Node {
	let node = root;
	for (const step of path) {
		if (typeof step === "number" && isSeq(node)) node = node.items[step];
		else if (typeof step === "string" && isMap(node)) node = node.get(step, true);
		else throw new Error(`no ${String(step)} in ${String(node)}`);
	}
	return node as Node;
}

/** What a test asserts about a fault: code and where, never the message text. */
export function where(f: { code: string; line: number; column: number; endLine: number; endColumn: number }) {
	return { code: f.code, line: f.line, column: f.column, endLine: f.endLine, endColumn: f.endColumn };
}
