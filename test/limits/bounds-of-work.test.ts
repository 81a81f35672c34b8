/**
 * The bounds of src/limits, each at its edge: an input at the bound reads as before, one past it ends with
 * its fault at the first character (or node) past the bound, and the rest of the file is not judged (no
 * cascade of `section-unknown` for nodes never read). The repository-scale cases (a 900 KB condition, a
 * 20,000-step chain, the language server) are test/security/bounded-work-on-any-input.test.ts.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { chainExpander } from "../../src/chain/index.ts";
import { MAX_ADDRESS_TEXT, MAX_CHAIN_CHARS, MAX_CONDITION_TEXT, MAX_EXPRESSION_CHARS } from "../../src/limits/index.ts";
import { at, covered, faultsAt, head, judge } from "../language/helpers.ts";

const loopOver = (cond: string) =>
	`${head(`  - id: l\n    loop: "${cond}"\n    max: 2\n    do:\n      - id: a\n        agent: scout\n        output: { ok: boolean }\n`)}\n## a\nx\n`;

/** `a.output.ok || a.output.ok || …` of exactly `length` characters. */
function conditionOf(length: number): string {
	let c = "a.output.ok";
	while (c.length + 15 <= length) c += " || a.output.ok";
	return c + " ".repeat(length - c.length);
}

describe("one condition or address", () => {
	it("reads a condition of 1,000 characters and refuses one of 1,001 from its 1,001st character", () => {
		expect(conditionOf(MAX_EXPRESSION_CHARS)).toHaveLength(1000);
		expect(faultsAt(loopOver(conditionOf(MAX_EXPRESSION_CHARS)))).toEqual([]);
		const text = loopOver(`${conditionOf(MAX_EXPRESSION_CHARS)}x`);
		const [f] = judge(text).faults;
		// `    loop: "` is 11 characters: the condition starts at column 12.
		expect(at(f)).toBe("expression-too-long 7:1012");
		expect(covered(text, f)).toBe("x");
	});

	it("refuses an address of 1,001 characters in `reads:`", () => {
		const address = `input${".x".repeat(498)}`;
		const text = `${head(`  - id: a\n    agent: scout\n    reads: [${address}yy]\n`)}\n## a\nx\n`;
		// `    reads: [` is 12 characters on line 8: the address starts at column 13.
		expect(faultsAt(text)).toEqual(["expression-too-long 8:1013"]);
	});
});

describe("the file's expressions together", () => {
	it("conditions past 8,000 characters together end with expression-budget at the one that crosses", () => {
		const cond = conditionOf(600);
		const loops = Array.from(
			{ length: 30 },
			(_, i) => `  - id: l${i}\n    loop: "${cond}"\n    max: 1\n    do:\n      - id: a${i}\n        agent: scout\n`,
		).join("");
		const sections = Array.from({ length: 30 }, (_, i) => `## a${i}\nx\n`).join("");
		// The 14th loop (l13, its `loop:` on line 7 + 6 × 13) crosses 8,000 characters.
		expect(Math.ceil((MAX_CONDITION_TEXT + 1) / 600) - 1).toBe(13);
		// Its condition fails to read and no later one is judged: one fault, where the bound was crossed.
		expect(faultsAt(`${head(loops)}${sections}`)).toEqual(["expression-budget 85:11"]);
	});

	it("addresses past 60,000 characters together end with expression-budget", () => {
		const address = `input${".x".repeat(297)}`;
		const n = Math.ceil((MAX_ADDRESS_TEXT + 1) / address.length);
		const nodes = Array.from({ length: n }, (_, i) => `  - id: n${i}\n    agent: scout\n    reads: [${address}]\n`);
		const sections = Array.from({ length: n }, (_, i) => `## n${i}\nx\n`).join("");
		expect(faultsAt(`${head(nodes.join(""))}${sections}`)).toEqual([`expression-budget ${8 + 3 * (n - 1)}:13`]);
	});
});

describe("nodes and chains", () => {
	it("a file of 10,001 nodes ends with too-many-nodes at the 10,001st, and its sections are not judged", () => {
		const n = 10_001;
		const nodes = Array.from({ length: n }, (_, i) => `  - id: n${i}\n    agent: scout\n`).join("");
		const sections = Array.from({ length: n }, (_, i) => `## n${i}\nx\n`).join("");
		expect(faultsAt(`${head(nodes)}${sections}`)).toEqual(["too-many-nodes 20006:5"]);
	}, 60_000);

	it("a `chain:` past 2,000 characters ends with chain-too-long at its 2,001st character", () => {
		const chain = Array(400).fill("@scout").join(" -> ");
		expect(chain.length).toBeGreaterThan(MAX_CHAIN_CHARS);
		const text = `---\nname: t\ndescription: d\ninput: string\nchain: "${chain}"\n---\n`;
		// `chain: "` is 8 characters: the chain starts at column 9.
		const expandChain = chainExpander(tmpdir(), { user: false, project: false });
		expect(faultsAt(text, "t", { expandChain })).toEqual([`chain-too-long 5:${9 + MAX_CHAIN_CHARS}`]);
	});
});
