// Every refusal: its code and the exact columns it points at (1-based, end exclusive), one fault per mistake.
import { describe, expect, it } from "vitest";
import { parseChain } from "../../src/chain/index.ts";
import type { FaultCode } from "../../src/faults/index.ts";

type Want = [code: FaultCode, column: number, endColumn: number, expected?: string[]];

function faults(text: string, globals?: string) {
	const r = parseChain(text, { file: "chain.txt", ...(globals === undefined ? {} : { globals: { text: globals } }) });
	expect(r.value).toBeUndefined();
	return r.faults;
}

const CASES: [name: string, text: string, want: Want][] = [
	// quotes and layout
	["unterminated double quote", '@a -> "abc', ["chain-syntax", 7, 8]],
	["unterminated single quote", "'abc", ["chain-syntax", 1, 2]],
	["quote closed only by an escape", '"abc\\"', ["chain-syntax", 1, 2]],
	["text glued to a quote", '"a"b -> @c', ["chain-syntax", 1, 5]],
	["an unquoted goal", "@a do the thing", ["chain-syntax", 4, 16]],
	["two references without ->", "@a @b", ["chain-syntax", 4, 6]],
	["--flag=value", "@a --model=p/m", ["chain-syntax", 4, 15, ["--model p/m"]]],
	["steps after --", "@a -- --retry 1 -> @b", ["chain-syntax", 17, 22]],
	["a second --", "@a -- --retry 1 --", ["chain-syntax", 17, 19]],
	["a word among chain-wide flags", "@a -- foo", ["chain-syntax", 7, 10]],
	// empty steps
	["an empty chain", "", ["chain-empty-step", 1, 1]],
	["a blank chain", "   ", ["chain-empty-step", 1, 4]],
	["only chain-wide flags", "-- --retry 1", ["chain-empty-step", 1, 3]],
	["a leading ->", "-> @a", ["chain-empty-step", 1, 3]],
	["a trailing ->", "@a ->", ["chain-empty-step", 4, 6]],
	["a doubled ->", "@a -> -> @b", ["chain-empty-step", 7, 9]],
	["a lone ->", "->", ["chain-empty-step", 1, 3]],
	// references
	["a bare word", "research", ["chain-bad-ref", 1, 9, ["@research"]]],
	["a lone @", "@", ["chain-bad-ref", 1, 2]],
	["an agent name starting with -", "@-x", ["chain-bad-ref", 1, 4]],
	["an empty label", "@a:", ["chain-bad-ref", 1, 4]],
	["an empty flow name", "flow:", ["chain-bad-ref", 1, 6]],
	["a bad workflow name", "workflow:-x", ["chain-bad-ref", 1, 12]],
	["a template escaping with ..", "template:../x", ["chain-bad-ref", 1, 14]],
	["a template with .. inside", "template:a/../b", ["chain-bad-ref", 1, 16]],
	["an absolute template path", "template:/etc/passwd", ["chain-bad-ref", 1, 21]],
	["an empty goal", '""', ["chain-bad-ref", 1, 3]],
	["a blank goal", '"   "', ["chain-bad-ref", 1, 6]],
	["a step of flags only", "--retry 1", ["chain-bad-ref", 1, 8]],
	["a later step of flags only", "@a -> --retry 1", ["chain-bad-ref", 7, 14]],
	// flag names
	["a misspelt flag", "@a --modle p/m", ["chain-unknown-flag", 4, 11, ["--model"]]],
	["a misspelt boolean flag", "@a --continue-on-eror", ["chain-unknown-flag", 4, 22, ["--continue-on-error"]]],
	["a step flag after --", "@a -- --model p/m", ["chain-unknown-flag", 7, 14, ["--global-model"]]],
	["a flag from elsewhere", "@a ---x", ["chain-unknown-flag", 4, 8]],
	// missing values
	["--model without a value", "@a --model", ["chain-flag-value", 4, 11]],
	["--model before ->", "@a --model -> @b", ["chain-flag-value", 4, 11]],
	["--skill before a flag", "@a --skill --retry 1", ["chain-flag-value", 4, 11]],
	["--budget-total without a value", "@a -- --budget-total", ["chain-flag-value", 7, 21]],
	["an empty quoted value", '@a --model ""', ["chain-flag-value", 12, 14]],
	// bad values
	["a model with a bad provider", "@a --model p%/m", ["chain-flag-value", 12, 14]],
	["a model with an empty provider", "@a --model /x", ["chain-flag-value", 12, 14]],
	["a model with an empty id", "@a --model p/", ["chain-flag-value", 12, 14]],
	["a misspelt thinking suffix", "@a --model p/m:hgih", ["chain-flag-value", 16, 20, ["high"]]],
	["an empty thinking suffix", "@a --model p/m:", ["chain-flag-value", 15, 16]],
	["a misspelt thinking level", "@a --thinking hgih", ["chain-flag-value", 15, 19, ["high"]]],
	["an unknown thinking level", "@a --global-thinking turbo", ["chain-flag-value", 22, 27]],
	["an empty skill", "@a --skill a,,b", ["chain-flag-value", 14, 15]],
	["a repeated skill", "@a --skill a,a", ["chain-flag-value", 14, 15]],
	["a skill with a space", '@a --skill "bad name"', ["chain-flag-value", 13, 21]],
	["a zero timeout", "@a --timeout 0", ["chain-flag-value", 14, 15]],
	["a timeout in unknown units", "@a --timeout 5x", ["chain-flag-value", 14, 16]],
	["a decimal timeout", "@a --timeout 1.5s", ["chain-flag-value", 14, 18]],
	["a negative retry", "@a --retry -1", ["chain-flag-value", 12, 14]],
	["a decimal retry", "@a --retry 1.5", ["chain-flag-value", 12, 15]],
	["a backoff without unit", "@a -- --backoff 2", ["chain-flag-value", 17, 18]],
	["a zero backoff", "@a -- --backoff 0s", ["chain-flag-value", 17, 19]],
	["a zero budget", "@a -- --budget-total 0", ["chain-flag-value", 22, 23]],
	["a word for max-history", "@a -- --max-history all", ["chain-flag-value", 21, 24]],
	["a value on a boolean flag", "@a --continue-on-error yes", ["chain-flag-value", 24, 27, ["true", "false"]]],
	["an empty own goal", '@a "" -> @b', ["chain-bad-ref", 4, 6]],
	["a warning above the total", "@a -- --budget-total 10 --budget-warning 20", ["chain-flag-value", 42, 44, ["10"]]],
	// duplicates
	["a flag twice on a step", "@a --retry 1 --retry 2", ["chain-duplicate-flag", 14, 21]],
	["a boolean twice on a step", "@a --continue-on-error --continue-on-error", ["chain-duplicate-flag", 24, 43]],
	["a label twice", "@a:x -> @b:x", ["chain-duplicate-label", 12, 13]],
	["a label that is another step's name", "@x -> @b:x", ["chain-duplicate-label", 10, 11]],
	["a global twice in the chain", "@a --global-model p/m -> @b --global-model q/n", ["chain-duplicate-flag", 29, 43]],
];

describe("refusals", () => {
	it.each(CASES)("%s: %j", (_name, text, [code, column, endColumn, expected]) => {
		const found = faults(text);
		expect(found.map((f) => [f.code, f.column, f.endColumn])).toEqual([[code, column, endColumn]]);
		if (expected) expect(found[0].expected).toEqual(expected);
		expect(found[0].file).toBe("chain.txt");
		expect(found[0].line).toBe(1);
	});

	it("points a duplicate at the first one", () => {
		const [dup] = faults("@a --retry 1 --retry 2");
		expect(dup.related).toEqual([{ message: "First given here.", file: "chain.txt", line: 1, column: 4 }]);
	});

	it("reports every mistake at once, in order, one per mistake", () => {
		const text = '--x -> @a --modle p/m -> -> research --thinking hgih --retry 1 --retry 2 -> "open';
		expect(faults(text).map((f) => [f.code, text.slice(f.offset, f.endOffset)])).toEqual([
			["chain-bad-ref", "--x"],
			["chain-unknown-flag", "--x"],
			["chain-unknown-flag", "--modle"],
			["chain-empty-step", "->"],
			["chain-bad-ref", "research"],
			["chain-flag-value", "hgih"],
			["chain-duplicate-flag", "--retry"],
			["chain-syntax", '"'],
		]);
	});

	it("reports a separate globals string's faults in its own text", () => {
		const found = faults("@a -- --retry 1", "--continue-on-error --retry 2 -> @b");
		expect(found.map((f) => [f.code, f.column, f.endColumn])).toEqual([
			["chain-duplicate-flag", 21, 28],
			["chain-syntax", 31, 36],
		]);
		expect(found[0].related?.[0]).toMatchObject({ line: 1, column: 7 });
	});

	it("gives the path of the step and flag", () => {
		const paths = faults("@a -> @b --thinking x -- --backoff 3").map((f) => f.path);
		expect(paths).toEqual(["chain/2.thinking", "chain.backoff"]);
	});
});

describe("no cascade", () => {
	it("lets an unknown flag take its plain value, but not the next step's reference", () => {
		expect(faults("@a --verbose x").map((f) => f.code)).toEqual(["chain-unknown-flag"]);
		expect(faults("@a --verbose @b").map((f) => f.code)).toEqual(["chain-unknown-flag", "chain-syntax"]);
	});

	it("reports a broken value once, as what it is", () => {
		expect(faults('@a --skill "unclosed').map((f) => [f.code, f.column])).toEqual([["chain-syntax", 12]]);
	});
});
