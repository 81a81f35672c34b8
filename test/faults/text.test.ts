// A fault's message and its hint read as sentences wherever they are printed: the CLI, the language server,
// chains and flow tests all join them the same way.
import { describe, expect, it } from "vitest";
import { type Fault, faultText, formatFault } from "../../src/faults/index.ts";
import { toDiagnostic } from "../../src/lsp/diagnostics.ts";

const base: Fault = {
	code: "section-missing",
	file: "/p/f.md",
	path: "look",
	line: 6,
	column: 9,
	endLine: 6,
	endColumn: 13,
	offset: 60,
	endOffset: 64,
	message: "the agent node `look` has no `## look` section",
};

describe("faultText", () => {
	it("puts a stop between a message and its hint, and starts the hint as a sentence", () => {
		expect(faultText({ ...base, hint: "Add one saying what the turn is asked to do." })).toBe(
			"the agent node `look` has no `## look` section. Add one saying what the turn is asked to do.",
		);
		expect(faultText({ message: "this condition nests too deeply to read", hint: "split it across nodes" })).toBe(
			"this condition nests too deeply to read. Split it across nodes.",
		);
		expect(faultText({ message: "no agent `planer`. Did you mean `planner`?", hint: "Remove it." })).toBe(
			"no agent `planer`. Did you mean `planner`? Remove it.",
		);
	});

	it("leaves a message without a hint as it is", () => {
		expect(faultText(base)).toBe(base.message);
	});

	it("is what the CLI line and the editor's diagnostic show", () => {
		const f = { ...base, hint: "Add one." };
		expect(formatFault(f, "f.md")).toBe(
			"f.md:6:9: section-missing: the agent node `look` has no `## look` section. Add one. (look)",
		);
		expect(toDiagnostic(f).message).toBe(faultText(f));
	});
});
