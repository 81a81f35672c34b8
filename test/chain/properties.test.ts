// Properties over generated chains: printing then reading gives the spec back, and no input crashes the reader.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChainSpec, formatChain, parseChain } from "../../src/chain/index.ts";
import { MAX_CHAIN_CHARS } from "../../src/limits/index.ts";
import { lineTable } from "../../src/text/index.ts";
import { chainish, chainSpec, mutate } from "./arbitraries.ts";

const withoutRanges = (spec: ChainSpec) => ({
	steps: spec.steps.map(({ range: _range, ...rest }) => rest),
	globals: spec.globals,
});

function checkResult(text: string): void {
	const r = parseChain(text, { file: "p.txt" });
	expect(r.value === undefined).toBe(r.faults.length > 0);
	const table = lineTable(text);
	let last = 0;
	for (const f of r.faults) {
		expect(f.file).toBe("p.txt");
		expect(0 <= f.offset && f.offset <= f.endOffset && f.endOffset <= text.length).toBe(true);
		expect(f.offset).toBeGreaterThanOrEqual(last);
		last = f.offset;
		expect(table.point(f.offset)).toEqual({ line: f.line, column: f.column, offset: f.offset });
		expect(table.point(f.endOffset)).toEqual({ line: f.endLine, column: f.endColumn, offset: f.endOffset });
	}
	if (!r.value) return;
	for (const s of r.value.steps) {
		const { start, end } = s.range;
		expect(0 <= start.offset && start.offset < end.offset && end.offset <= text.length).toBe(true);
	}
	// parse(format(parse(x))) is parse(x), and the printed text is a fixed point.
	const printed = formatChain(r.value);
	const again = parseChain(printed, { file: "p.txt" });
	expect(again.faults).toEqual([]);
	expect(withoutRanges(again.value as ChainSpec)).toEqual(withoutRanges(r.value));
	expect(formatChain(again.value as ChainSpec)).toBe(printed);
}

describe("chain properties", () => {
	it("reads a printed spec back to the same spec", () => {
		fc.assert(
			fc.property(chainSpec, (spec) => {
				const text = formatChain(spec);
				const r = parseChain(text, { file: "p.txt" });
				expect(r.faults).toEqual([]);
				expect(withoutRanges(r.value as ChainSpec)).toEqual(withoutRanges(spec));
				expect(formatChain(r.value as ChainSpec)).toBe(text);
			}),
			{ numRuns: 500 },
		);
	});

	it("never throws on chain-like text, and every fault lies within it", () => {
		fc.assert(
			fc.property(chainish, (text) => checkResult(text)),
			{ numRuns: 1000 },
		);
	});

	it("never throws on mutated valid chains, and every fault lies within them", () => {
		const mutated = chainSpec.chain((spec) => mutate(formatChain(spec)));
		fc.assert(
			fc.property(mutated, (text) => checkResult(text)),
			{ numRuns: 1000 },
		);
	});

	it("never throws on arbitrary unicode", () => {
		fc.assert(
			fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => checkResult(text)),
			{ numRuns: 300 },
		);
	});

	it("reads a long chain in one pass, up to the bound on its length", () => {
		const steps = (n: number) => Array.from({ length: n }, (_, i) => `@s${i} --retry ${i % 5} --modle x`).join(" -> ");
		const r = parseChain(steps(70), { file: "long" });
		expect(steps(70).length).toBeLessThanOrEqual(MAX_CHAIN_CHARS);
		expect(r.faults).toHaveLength(70);
		expect(r.faults.every((f) => f.code === "chain-unknown-flag")).toBe(true);
		// Past the bound the grammar is not run at all: one fault, wherever the mistakes were.
		expect(parseChain(steps(2000), { file: "long" }).faults.map((f) => f.code)).toEqual(["chain-too-long"]);
	});
});
