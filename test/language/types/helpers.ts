// A type written as the `output:` of a node in a flow file, read the way the builder reads it.
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { parseTypeShorthand } from "../../../src/language/types/index.ts";
import { lineTable } from "../../../src/text/index.ts";

/** The file the type sits in: `output:` is on line 5, so ranges prove the YAML base is added. */
export function readType(output: string) {
	const yaml = `name: t\nnodes:\n  - id: plan\n    output: ${output}\n`;
	const text = `---\n${yaml}---\n\n## plan\nPlan.\n`;
	const doc = parseDocument(yaml, { lineCounter: new LineCounter() });
	if (doc.errors.length) throw new Error(doc.errors[0].message);
	const nodes = isMap(doc.contents) ? doc.contents.get("nodes", true) : undefined;
	const first = isSeq(nodes) ? nodes.items[0] : undefined;
	const node = isMap(first) ? first.get("output", true) : undefined;
	const result = parseTypeShorthand(node ?? null, {
		file: "t.md",
		table: lineTable(text),
		yamlBase: 4,
		path: "plan.output",
	});
	const refused = result.faults.map((f) => ({
		path: f.path,
		source: text.slice(f.offset, f.endOffset),
		line: f.line,
		column: f.column,
	}));
	return { ...result, refused, text };
}

/** Where `output:`'s value starts on its line: `    output: ` is 12 columns. */
export const VALUE_COLUMN = 13;
