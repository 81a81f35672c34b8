/**
 * Every fix a chain fault suggests is itself accepted (issue 23, point 4: `--continue-on-error=true` was told
 * to write `--continue-on-error true`, which was then refused). Each fault's suggested text (`expected`, and
 * any "Write `…`" in its hint) is put where the fault points, and the chain read again: that fault is gone
 * and no new one takes its place. The corpus is the refusal table of docs/chain.md plus the cases below.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseChain } from "../../src/chain/index.ts";
import { rosterOf } from "../../src/agents/index.ts";
import type { Fault } from "../../src/faults/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";

const roster = rosterOf([
	{
		kind: "agent",
		name: "scout",
		description: "d",
		tools: ["read"],
		prompt: "p",
		file: "/a/scout.md",
		source: "shipped",
	},
]);
/** Checks a flow with chains expanded. */
const judge = (text: string) => checkFlowText(text, "t.md", roster, catalogueOptions("/nonexistent", {}, {}));

const DOC = readFileSync(new URL("../../docs/chain.md", import.meta.url), "utf8");

/** The examples of the refusal table: the second column's code spans. */
function tableExamples(): string[] {
	const section = DOC.slice(DOC.indexOf("## Refusals"), DOC.indexOf("### Positions inside a flow file"));
	const rows = section.split("\n").filter((l) => /^\| `chain-/.test(l));
	return rows.flatMap((row) => {
		const cell = row.split(" | ")[1] ?? "";
		return [...cell.matchAll(/`([^`]+)`/g)]
			.map((m) => m[1])
			.filter((t) => t.includes("@") || t.includes("--") || t.includes('"'));
	});
}

const MORE = [
	"@a --continue-on-error=true",
	"@a --continue-on-error=yes",
	"@a --continue-on-error yes",
	"@a --model=p/m",
	"@a --retry=2",
	"@a -- --backoff=2s",
	"@a --modle p/m",
	"@a --contine-on-error",
	"@a -- --model p/m",
	"@a -- --skill x",
	"@a -- --thinking low",
	"research -> @b",
	"@a --thinking hgih",
	"@a --global-thinking deeep",
	"@a --model p/m:hgih",
	"@a --model opus:hihg",
	"@a --timeout 25d",
	"@a --timeout 3000000",
	"@a -- --backoff 30d",
	"@a -- --budget-total 10 --budget-warning 20",
];

/** The texts a fault suggests writing where it points. */
function suggestions(f: Fault): string[] {
	const written = [...(f.hint ?? "").matchAll(/Write `([^`]+)`/g)].map((m) => m[1]);
	// A bare list of every flag is an inventory, not a fix: only a named guess is one.
	const listed = f.code === "chain-unknown-flag" && !/Did you mean/.test(f.message) ? [] : (f.expected ?? []);
	return [...new Set([...written, ...listed])];
}

describe("every fix hint is itself accepted", () => {
	const corpus = [...new Set([...tableExamples(), ...MORE])];

	it("has a corpus that covers the table", () => {
		expect(tableExamples().length).toBeGreaterThanOrEqual(20);
	});

	it.each(corpus)("%s", (text) => {
		const faults = parseChain(text, { file: "c" }).faults;
		expect(faults.length).toBeGreaterThan(0);
		for (const f of faults) {
			for (const fix of suggestions(f)) {
				const fixed = text.slice(0, f.offset) + fix + text.slice(f.endOffset);
				const after = parseChain(fixed, { file: "c" }).faults;
				// That fault is gone, and the fix brought no fault of its own.
				expect(after.length, `${text} → ${fixed}: ${after.map((a) => a.message).join("; ")}`).toBeLessThan(
					faults.length,
				);
				expect(
					after.some((a) => a.offset >= f.offset && a.offset < f.offset + fix.length),
					`${fixed}`,
				).toBe(false);
			}
		}
	});
});

describe("the fixes flow files are told are accepted too", () => {
	const flow = (frontmatter: string) =>
		`---\nname: t\ndescription: d\ninput: string\n${frontmatter}---\n\n## look\nx\n`;
	const cases = [
		"nodes:\n  - id: look\n    agent: scout\n    timeout: 1h30min\n",
		"nodes:\n  - id: look\n    agent: scout\n    timeout: 25d\n",
		"nodes:\n  - id: look\n    agent: scout\n    timeout: 5sec\n",
		"timeout: 30mins\nnodes:\n  - id: look\n    agent: scout\n",
		"budget: { tokens: 900 }\nchain: '@scout -- --budget-warning 1000'\n",
		"chain: '@scout --thinking hgih --timeout 25d'\n",
	];
	it("offers no fix that would itself be refused: `30days` is not told to write `30d`, which is too long", () => {
		const [f] = judge(flow("timeout: 30days\nnodes:\n  - id: look\n    agent: scout\n")).faults;
		expect(f.code).toBe("duration-invalid");
		expect(suggestions(f)).toEqual([]);
		expect(f.message).not.toContain("30d`");
	});

	it.each(cases)("%s", (frontmatter) => {
		const text = flow(frontmatter);
		const faults = judge(text).faults;
		const fixable = faults.filter((f) => suggestions(f).length > 0);
		expect(fixable.length).toBeGreaterThan(0);
		for (const f of fixable) {
			for (const fix of suggestions(f)) {
				const fixed = text.slice(0, f.offset) + fix + text.slice(f.endOffset);
				const after = judge(fixed).faults;
				expect(after.length, `${fixed}: ${after.map((a) => a.message).join("; ")}`).toBeLessThan(faults.length);
				expect(
					after.some((a) => a.offset === f.offset && a.code === f.code),
					fixed,
				).toBe(false);
			}
		}
	});
});
