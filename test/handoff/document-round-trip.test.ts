import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	HANDOFF_STATUSES,
	type HandoffDocument,
	isChainEnd,
	parseHandoff,
	renderHandoff,
} from "../../src/handoff/index.ts";

// A fixed seed keeps the suite deterministic; change it locally to explore other inputs.
const SEED = 20_250_101;

// Text that leans on what the format treats as structure, so escaping is exercised far more often than
// uniform random strings would manage.
const tricky = fc.constantFrom(
	"## Status",
	"## Next task",
	"---",
	"--- ",
	"(none)",
	"(none — chain ends here)",
	"\\",
	"\\## x",
	"- item",
	"  indented",
	"",
	"\r",
	" ",
	'"quoted"',
	"handoff-format: pi-flows/1",
	"by: checkpoint",
	"# HANDOFF",
	"\uFEFF",
);
const line = fc.oneof(tricky, fc.string({ unit: "binary", maxLength: 12 }), fc.string({ maxLength: 20 }));
const text = fc.array(line, { maxLength: 5 }).map((lines) => lines.join("\n"));

const doc: fc.Arbitrary<HandoffDocument> = fc
	.record(
		{
			status: fc.constantFrom(...HANDOFF_STATUSES),
			summary: text,
			decisions: fc.array(text, { maxLength: 4 }),
			artifacts: fc.array(text, { maxLength: 4 }),
			next_task: text,
			blocked: text,
			writtenAt: fc.oneof(
				fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
				text,
			),
			session: text,
			contextAtWrite: fc.double({ min: 0, max: 2, noNaN: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
			by: fc.constantFrom("finish" as const, "checkpoint" as const),
		},
		{ requiredKeys: ["status", "summary", "decisions", "artifacts", "writtenAt", "by"] },
	)
	.map((d) => ({ ...d })); // fast-check's records have a null prototype; a parsed document is a plain object

describe("handoff document", () => {
	it("parse(render(d)) gives d back for 3,000 generated documents", () => {
		fc.assert(
			fc.property(doc, (d) => {
				const parsed = parseHandoff(renderHandoff(d));
				expect(parsed.problems).toEqual([]);
				expect(parsed.value).toStrictEqual(d);
			}),
			{ numRuns: 3000, seed: SEED },
		);
	});

	it("never throws on arbitrary text, and reports instead", () => {
		const fragments = fc.array(fc.oneof(tricky, fc.string({ unit: "binary" })), { maxLength: 30 });
		fc.assert(
			fc.property(fragments, (parts) => {
				const result = parseHandoff(parts.join("\n"));
				expect(result.value !== undefined || result.problems.some((p) => p.severity === "error")).toBe(true);
			}),
			{ numRuns: 3000, seed: SEED },
		);
		expect(parseHandoff("").problems.map((p) => p.code)).toContain("missing-section");
	});

	it("points every problem at a line the document has", () => {
		const fragments = fc.array(fc.oneof(tricky, fc.string({ unit: "binary" })), { maxLength: 30 });
		fc.assert(
			fc.property(fragments, (parts) => {
				const text = parts.join("\n");
				const lines = text.replace(/^\uFEFF/, "").split("\n").length;
				for (const p of parseHandoff(text).problems) {
					expect(p.line).toBeGreaterThanOrEqual(1);
					expect(p.line).toBeLessThanOrEqual(lines);
				}
			}),
			{ numRuns: 3000, seed: SEED },
		);
		// The cases that pointed one line past the end: an empty status as the last line, a footer rule with
		// nothing after it.
		const at = (md: string, code: string) => parseHandoff(md).problems.find((p) => p.code === code)?.line;
		expect(at("## What was done\nx\n## Status", "bad-status")).toBe(3);
		expect(at("## Status\n\nmaybe\n## What was done\nx", "bad-status")).toBe(3);
		expect(at("## Status\ndone\n## What was done\nx\n---", "missing-footer-field")).toBe(5);
	});

	it("keeps a next task whose lines look like headings, which the old parser cut off", () => {
		const d: HandoffDocument = {
			status: "partial",
			summary: "Half done.",
			decisions: [],
			artifacts: ["a.ts"],
			next_task: "Do this:\n## Not a heading\n(none of the old rules apply)\n---\nend",
			writtenAt: "2025-01-01T00:00:00.000Z",
			by: "finish",
		};
		const md = renderHandoff(d);
		expect(md).toContain("\\## Not a heading");
		expect(parseHandoff(md).value?.next_task).toBe(d.next_task);
	});

	it("reads a CRLF copy and a hand-written document without a footer", () => {
		const d: HandoffDocument = {
			status: "done",
			summary: "All good.",
			decisions: ["kept it small"],
			artifacts: [],
			writtenAt: "2025-01-01T00:00:00.000Z",
			by: "checkpoint",
		};
		expect(parseHandoff(renderHandoff(d).replaceAll("\n", "\r\n")).value).toStrictEqual(d);
		const hand = parseHandoff("## Status\nblocked\n\n## What was done\nStuck.\n\n## Next task\nAsk Ana.\n");
		expect(hand.value).toMatchObject({ status: "blocked", summary: "Stuck.", next_task: "Ask Ana.", by: "finish" });
		expect(hand.problems.map((p) => p.code)).toEqual(
			expect.arrayContaining(["missing-section", "missing-footer-field"]),
		);
		expect(hand.problems.every((p) => p.severity === "warning")).toBe(true);
	});

	it("reports errors by code: a bad status, a duplicated section, no summary", () => {
		const codes = (md: string) => parseHandoff(md).problems.map((p) => p.code);
		expect(codes("## Status\nmaybe\n\n## What was done\nx\n")).toContain("bad-status");
		expect(codes("## Status\ndone\n\n## Status\ndone\n\n## What was done\nx\n")).toContain("duplicate-section");
		expect(parseHandoff("## Status\ndone\n").value).toBeUndefined();
	});

	it("ends the chain with no next task or when blocked", () => {
		const base: HandoffDocument = {
			status: "partial",
			summary: "",
			decisions: [],
			artifacts: [],
			writtenAt: "",
			by: "finish",
		};
		expect(isChainEnd(base)).toBe(true);
		expect(isChainEnd({ ...base, next_task: "  \n" })).toBe(true);
		expect(isChainEnd({ ...base, next_task: "go on" })).toBe(false);
		expect(isChainEnd({ ...base, next_task: "go on", status: "blocked" })).toBe(true);
	});
});
