/**
 * The plan of a checked flow: rows of data first, then one line per row. The golden text below is what
 * `pi-flows plan` prints for test/fixtures/render/small.md; a change to it is a change users see.
 */
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { checkFlowFile } from "../../../src/load/index.ts";
import { type PlanNodeRow, planOf, showPlan } from "../../../src/language/render/index.ts";
import { head, judge, shipped } from "../helpers.ts";

const small = checkFlowFile(`${PACKAGE_ROOT}/test/fixtures/render/small.md`, shipped).value;
if (!small) throw new Error("test/fixtures/render/small.md must check");
const display = (p: string) => relative(PACKAGE_ROOT, p);

const golden = `small · small.md · input string · budget $2.5, 40 turns · ≤ 7 turns · ≤ 1h42m · and a person's answer
○ plan · agent planner (agents/planner.md) · reads input · output { status: ready | blocked } · model openai/gpt-5 · timeout 20m from the flow · ≤ 1 turn · ≤ 20m
○ fix · loop until review.output.approved && size(fix.ledger) == 0 · max 2 · ledger · ≤ 6 turns · ≤ 1h20m
  ○ code · agent coder (agents/coder.md) · reads plan, fix.ledger · model from pi settings · timeout 10m · retry 1 · memory fix · ≤ 2 turns · ≤ 20m
  ○ review · agent reviewer (agents/reviewer.md) · reads code, diff · model from pi settings · timeout 20m from the flow · verdict fix · on-fail continue · ≤ 1 turn · ≤ 20m
○ gate · choice · ≤ 2m · and a person's answer
  ◇ case ready · when plan.output.status == "ready"
    ○ tests · check .pi/checks/test.sh · timeout 2m by default · ≤ 2m
  ◇ case 2 · when fix.output.converged
    ○ more · ask "Go on?" · output { yes: boolean } · yes or no · a person's answer
  ◇ default · nothing`;

describe("plan", () => {
	it("prints the golden plan", () => {
		expect(showPlan(planOf(small, { file: "small.md", display }))).toBe(golden);
	});

	it("is data: the flow first, then every node depth first, nested under its block", () => {
		const rows = planOf(small, { file: "small.md", display });
		expect(rows[0]).toMatchObject({
			row: "flow",
			name: "small",
			input: "string",
			budget: { turns: 40, cost: 2.5 },
			bound: { turns: 7, ms: 6_120_000, waits: true },
		});
		const nodes = rows.filter((r): r is PlanNodeRow => r.row === "node");
		expect(nodes.map((r) => `${r.depth} ${r.path}`)).toEqual([
			"1 plan",
			"1 fix",
			"2 fix/code",
			"2 fix/review",
			"1 gate",
			"3 gate/tests",
			"3 gate/more",
		]);
		expect(nodes.find((r) => r.id === "plan")?.model).toEqual({ ref: "openai/gpt-5", source: "node" });
		expect(nodes.find((r) => r.id === "code")?.timeout).toEqual({ ms: 600_000, source: "node" });
	});

	it("shows what a run's --model and --timeout would make of it, bounds included", () => {
		const rows = planOf(small, { file: "small.md", display, runModel: "anthropic/claude-haiku", timeoutMs: 300_000 });
		const code = rows.find((r): r is PlanNodeRow => r.row === "node" && r.id === "code");
		expect(code?.model).toEqual({ ref: "anthropic/claude-haiku", source: "run" });
		expect(code?.timeout).toEqual({ ms: 300_000, source: "run" });
		expect(code?.bound).toEqual({ turns: 2, ms: 600_000, waits: false, inFlight: 1 });
		expect(rows[0].row === "flow" && rows[0].bound.ms).toBe(37 * 60_000);
		expect(showPlan(rows)).toContain("model anthropic/claude-haiku from the run · timeout 5m from the run");
	});

	it("names where a model comes from: the flow, the agent, or pi's settings", () => {
		const text = `${head("  - id: a\n    agent: scout\n  - id: b\n    agent: synthesiser\n    model: x/y\n", "model: p/q\n")}\n## a\nx\n\n## b\ny\n`;
		const rows = planOf(judge(text).value as never, { file: "t.md" }).filter((r): r is PlanNodeRow => r.row === "node");
		expect(rows.map((r) => r.model)).toEqual([
			{ ref: "p/q", source: "flow" },
			{ ref: "x/y", source: "node" },
		]);
		expect(showPlan(planOf(judge(text.replace("model: p/q\n", "")).value as never, { file: "t.md" }))).toContain(
			"model from pi settings",
		);
	});

	it("says a call's callee, its input, and a map's items", () => {
		const text = `${head("  - id: m\n    map: [a, b, c]\n    concurrency: 3\n    do:\n      - id: s\n        agent: scout\n        reads: [item]\n")}\n## s\nx\n`;
		const shown = showPlan(planOf(judge(text).value as never, { file: "t.md" }));
		expect(shown).toContain("○ m · map over 3 items · concurrency 3 · ≤ 9 turns · ≤ 1h30m");
	});

	it("wraps between facts, never inside one, when given a width", () => {
		const lines = showPlan(planOf(small, { file: "small.md", display }), 80).split("\n");
		for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
		expect(
			lines
				.join(" ")
				.replace(/\s+·\s+/g, " · ")
				.replace(/\s+/g, " "),
		).toBe(golden.split("\n").join(" ").replace(/\s+/g, " "));
	});
});
