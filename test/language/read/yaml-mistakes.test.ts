/**
 * Issue 20, point 4: a YAML mistake in a flow's frontmatter reads like the checker's other faults: it
 * stands on the line the person must change, in plain words, with the column a key should start at.
 * Checked over a corpus of real indentation and quoting mistakes (./yaml-mistakes.ts).
 */
import { describe, expect, it } from "vitest";
import { readFlow } from "../../../src/language/read/index.ts";
import { REVIEW, TRIAGE } from "../../helpers/newcomer.ts";
import { YAML_MISTAKES } from "./yaml-mistakes.ts";

describe("YAML mistakes", () => {
	it("has a corpus of at least 20 mistakes, each made from a flow that reads", () => {
		expect(YAML_MISTAKES.length).toBeGreaterThanOrEqual(20);
		for (const base of [TRIAGE, REVIEW]) expect(readFlow(base, "f.md").faults).toEqual([]);
	});

	it.each(YAML_MISTAKES)("$name: the fault stands on the line to change", (c) => {
		const base = c.base === "triage" ? TRIAGE : REVIEW;
		expect(base).toContain(c.from);
		const { faults } = readFlow(base.replace(c.from, c.to), "f.md");
		expect(faults).toHaveLength(1);
		const [f] = faults;
		expect({ code: f.code, line: f.line, column: f.column }).toEqual({
			code: "yaml-syntax",
			line: c.line,
			column: c.column,
		});
		for (const words of c.says) expect(f.message).toContain(words);
		// Plain words: none of the parser's own jargon.
		expect(f.message).not.toMatch(/compact mapping|implicit key|flow sequence|block collection/i);
	});

	it("keeps the parser's words when no line explains the error", () => {
		const { faults } = readFlow(REVIEW.replace("input: string", "input: string\ninput: string"), "f.md");
		expect(faults[0]).toMatchObject({ code: "yaml-syntax", line: 5 });
	});
});
