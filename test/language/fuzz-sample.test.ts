/**
 * The fuzz targets of `npm run fuzz` on a fixed seed and a small sample each, so a parser that starts
 * crashing fails `npm test` without waiting for the next full run. Same generators, same judgements:
 * fuzz/targets.ts is the one place they live.
 */
import { describe, expect, it } from "vitest";
import { NODE_KINDS, generateFlow } from "../../fuzz/flows.ts";
import { runTarget } from "../../fuzz/harness.ts";
import { Rng } from "../../fuzz/rng.ts";
import { TARGETS } from "../../fuzz/targets.ts";
import { parseCondition } from "../../src/language/syntax/index.ts";
import { lineTable } from "../../src/text/index.ts";

const SEED = 20_261_130;
/** Per target; the flow targets are the slow ones (about 4 ms a case), the rest well under 1 ms. */
const SAMPLE: Record<string, number> = { "flow-generated": 1_000, "flow-mutated": 1_000 };
const DEFAULT_SAMPLE = 2_000;

describe("fuzz sample (fixed seed)", () => {
	for (const target of TARGETS.filter((t) => !t.knownBug)) {
		const cases = SAMPLE[target.name] ?? DEFAULT_SAMPLE;
		it(`${target.name}: ${cases} cases, every one answered and none crashed`, () => {
			const out = runTarget(target, { cases, seed: SEED });
			expect(out.failures, out.failures.map((f) => `${f.kind}: ${f.message}\n  ${f.input}`).join("\n")).toEqual([]);
			expect(out.cases).toBe(cases);
			// A target whose every input is refused tests only its first refusal.
			expect(out.values).toBeGreaterThan(cases / 10);
		}, 30_000);
	}

	it("generates every node kind, and without slips flows that check, so the checker is reached", () => {
		const kinds = new Set<string>();
		for (let s = 0; s < 200; s++) for (const k of generateFlow(new Rng(s), "gen", 8, 0).kinds) kinds.add(k);
		expect([...kinds].sort()).toEqual([...NODE_KINDS].sort());
		const flows = TARGETS.find((t) => t.name === "flow-generated") as (typeof TARGETS)[number];
		const checked = Array.from({ length: 200 }, (_, s) =>
			flows.judge({ seed: s, size: 1 + (s % 12), slips: 0 }),
		).filter((v) => v.answer === "value");
		expect(checked.length).toBeGreaterThanOrEqual(180);
	});

	// Bug 1 (fixed: past 32 levels a condition is refused before ohm runs): ohm's matcher recurses once per nesting level, and a condition nested about 60 (unclosed)
	// to 95 (closed) levels deep overflows the main thread's stack: parseCondition throws RangeError
	// instead of answering (src/language/syntax/expression.ts:21 `match`, and :24 `getExpectedText` for the
	// unclosed form). checkFlowText, `pi-flows check` and the language server all throw on such a flow.
	// 1,000 levels here, so a larger stack (a worker thread's 4 MB) cannot hide it.
	it("parseCondition answers a condition nested 1,000 parentheses deep (bug 1)", () => {
		for (const text of [`${"(".repeat(1_000)}a${")".repeat(1_000)}`, `${"(".repeat(1_000)}a`]) {
			const r = parseCondition(text, { file: "f.md", base: 0, table: lineTable(text), path: "n.loop" });
			expect(r.value !== undefined || r.faults.length > 0).toBe(true);
			expect(r.faults[0]?.code).toBe("condition-syntax");
			expect(r.faults[0]?.message).toContain("nest more than 32 deep");
			// The 33rd `(` is the one pointed at, on the one line: column 33.
			expect(r.faults[0]?.column).toBe(33);
		}
	});
});
