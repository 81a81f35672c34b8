/**
 * A node flood is refused without yaml parsing the items the builder never reads (issue 28): the items
 * of `nodes:` past the 10,001st are blanked to spaces before the parse. The refusal is the same fault at
 * the same place, and what follows the list is still read where it was.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { floodCut, MAX_NODES } from "../../src/limits/index.ts";
import { checkFlowText } from "../../src/load/index.ts";

const items = (n: number, indent = "  ") =>
	Array.from({ length: n }, (_, i) => `${indent}- id: n${i}\n${indent}  agent: scout\n`).join("");
const flow = (yaml: string, n: number) =>
	`---\n${yaml}---\n${Array.from({ length: n }, (_, i) => `## n${i}\nLook.\n`).join("")}`;

describe("floodCut", () => {
	it("blanks the items past the bound's next one, keeping every offset and what follows the list", () => {
		const yaml = `name: big\nnodes:\n${items(MAX_NODES + 5)}budget:\n  turns: 3\n`;
		const cut = floodCut(yaml);
		expect(cut.length).toBe(yaml.length);
		const keep = yaml.indexOf(`  - id: n${MAX_NODES + 1}\n`);
		expect(cut.slice(0, keep)).toBe(yaml.slice(0, keep));
		const tail = yaml.indexOf("budget:");
		expect(cut.slice(tail)).toBe(yaml.slice(tail));
		expect(cut.slice(keep, tail)).toMatch(/^[ \n]+$/);
		expect(cut.split("\n").length).toBe(yaml.split("\n").length);
	});

	it("leaves alone a list within the bound's next item, a flow list, and items at column 0 within it", () => {
		for (const yaml of [
			`nodes:\n${items(MAX_NODES + 1)}`,
			`nodes: [${Array.from({ length: MAX_NODES + 5 }, (_, i) => `{id: n${i}, agent: scout}`).join(", ")}]\n`,
			`nodes:\n${items(MAX_NODES, "")}`,
		])
			expect(floodCut(yaml)).toBe(yaml);
	});
});

describe("a node flood", () => {
	const roster = loadRoster(mkdtempSync(join(tmpdir(), "pi-flows-flood-")), { user: false, project: false });

	it("ends with too-many-nodes at the 10,001st node, and the key after the list is still judged", () => {
		const n = 2 * MAX_NODES;
		const yaml = `name: big\ndescription: d\ninput: string\nnodes:\n${items(n)}budget:\n  turns: x\n`;
		const judged = checkFlowText(flow(yaml, n), "big.md", roster);
		// Line 1 is `---`; the list starts on line 6; node i's `- id` is on line 6 + 2i.
		const at = (f: { code: string; line: number; column: number }) => [f.code, f.line, f.column];
		expect(judged.faults.map(at)).toEqual([
			["too-many-nodes", 6 + 2 * MAX_NODES, 5],
			["key-type", 6 + 2 * n + 1, 10],
		]);
	});

	it("items at column 0 are counted and cut the same way", () => {
		const n = MAX_NODES + 50;
		const yaml = `name: big\ndescription: d\ninput: string\nnodes:\n${items(n, "")}`;
		const judged = checkFlowText(flow(yaml, n), "big.md", roster);
		expect(judged.faults.map((f) => [f.code, f.line, f.column])).toEqual([["too-many-nodes", 6 + 2 * MAX_NODES, 3]]);
	});
});
