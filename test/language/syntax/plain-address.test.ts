/**
 * Plain addresses (names and dots) are built without the grammar, for speed (issue 28: a 10,000-node flow
 * spent a second of its check in ohm on its `reads:`). The tree must be the one the grammar builds: each
 * case is put against the same text parsed as a condition, which always goes through the grammar, at a
 * base inside a larger file so the ranges are proved absolute.
 */
import { describe, expect, it } from "vitest";
import { parseAddress, parseCondition, type SourceAt } from "../../../src/language/syntax/index.ts";
import { lineTable } from "../../../src/text/index.ts";

/** `text` placed on the third line of a file, after some indentation. */
function placed(text: string): SourceAt {
	const file = `---\nnodes:\n    reads: [${text}]\n`;
	return { file: "flow.md", base: file.indexOf("[") + 1, table: lineTable(file), path: "a.reads[0]" };
}

const VALID = ["item", "n9999", "_x", "plan.output.tasks", "a1.b_2.C3", "iffy", "intake.loops", "x.size", "truex"];
const REFUSED = ["if", "plan.in", "true", "a..b", "a.", ".a", "a-b", "9a", "a. b", "a .b", "é", ""];

describe("a plain address", () => {
	for (const text of VALID)
		it(`builds the grammar's tree for \`${text}\``, () => {
			const fast = parseAddress(text, placed(text));
			const grammar = parseCondition(text, placed(text));
			expect(grammar.value?.kind).toBe("address");
			expect(fast).toEqual(grammar);
		});

	for (const text of REFUSED)
		it(`leaves \`${text}\` to the grammar, which refuses it`, () => {
			const read = parseAddress(text, placed(text));
			expect(read.value).toBeUndefined();
			expect(read.faults.map((f) => f.code)).toEqual(["invalid-address"]);
		});
});
