// A chain inside a flow file's YAML value: faults and step ranges point into the file, not the substring.
import { describe, expect, it } from "vitest";
import { parseChain } from "../../src/chain/index.ts";
import { lineTable } from "../../src/text/index.ts";

const FILE = ["---", "name: demo", "chain: @a --thinking hgih -> @b", "---", ""].join("\n");
const CHAIN = "@a --thinking hgih -> @b";
const BASE = FILE.indexOf(CHAIN);

describe("positions", () => {
	it("makes fault positions absolute with a base offset and the file's line table", () => {
		const options = { file: "flows/demo.md", baseOffset: BASE, lineTable: lineTable(FILE), path: "nodes/plan.chain" };
		const r = parseChain(CHAIN, options);
		expect(r.faults).toHaveLength(1);
		const [f] = r.faults;
		expect(f).toMatchObject({ file: "flows/demo.md", line: 3, column: 22, endLine: 3, endColumn: 26 });
		expect(f.path).toBe("nodes/plan.chain/1.thinking");
		expect(FILE.slice(f.offset, f.endOffset)).toBe("hgih");
	});

	it("makes step ranges absolute too", () => {
		const ok = "@a -> @b --retry 1";
		const file = `chain: |\n  ${ok}\n`;
		const r = parseChain(ok, { file: "f.md", baseOffset: file.indexOf(ok), lineTable: lineTable(file) });
		const b = r.value?.steps[1];
		expect(b?.range.start).toEqual({ line: 2, column: 9, offset: file.indexOf("@b") });
		expect(file.slice(b?.range.start.offset, b?.range.end.offset)).toBe("@b --retry 1");
		expect(r.value?.range.start.line).toBe(2);
	});

	it("counts lines within a multi-line chain when given no line table", () => {
		const r = parseChain("@a\n  -> @b --modle x", { file: "c" });
		expect(r.faults.map((f) => [f.line, f.column, f.endColumn])).toEqual([[2, 9, 16]]);
	});

	it("shifts offsets by a base offset alone, keeping lines counted from the text", () => {
		const r = parseChain("@a --modle x", { file: "c", baseOffset: 100 });
		expect(r.faults.map((f) => [f.offset, f.endOffset, f.line, f.column])).toEqual([[103, 110, 1, 4]]);
	});

	it("places the globals string by its own options", () => {
		const r = parseChain("@a", { file: "flow.md", globals: { text: "--retry x", file: "<cli>" } });
		expect(r.faults.map((f) => [f.file, f.column, f.endColumn])).toEqual([["<cli>", 9, 10]]);
	});
});
