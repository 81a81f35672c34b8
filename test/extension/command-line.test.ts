import { describe, expect, it } from "vitest";
import { readCommandLine, readTimeout, readTokenBudget } from "../../src/extension/args.ts";
import { completeLine } from "../../src/extension/completions.ts";

const read = (line: string) => {
	const r = readCommandLine(line);
	if (!r.ok) throw new Error(r.error);
	return r.value;
};

describe("a /run command line", () => {
	it("takes flags leading the line or ending it, and leaves them as text in the middle", () => {
		expect(read("--model p/m explore How are faults reported? --timeout 10m")).toEqual({
			name: "explore",
			input: "How are faults reported?",
			flags: { "--model": "p/m", "--timeout": "10m" },
		});
		expect(read("explore what does --model mean here")).toEqual({
			name: "explore",
			input: "what does --model mean here",
			flags: {},
		});
		expect(read("explore why --timeout 5s --budget-tokens 50k")).toEqual({
			name: "explore",
			input: "why",
			flags: { "--timeout": "5s", "--budget-tokens": "50k" },
		});
	});

	it("reads a single quoted input as the text inside the quotes, and a bare name with no input", () => {
		expect(read(`explore "a -> b, \\"quoted\\""`).input).toBe('a -> b, "quoted"');
		expect(read("explore")).toEqual({ name: "explore", input: "", flags: {} });
		expect(read("")).toEqual({ name: "", input: "", flags: {} });
	});

	it("refuses an unknown leading flag with the nearest one, a flag with no value, and a flag given twice", () => {
		expect(readCommandLine("--modle p/m explore x")).toEqual({
			ok: false,
			error: expect.stringMatching(/^unknown flag `--modle`; did you mean `--model`\?/),
		});
		expect(readCommandLine("--model --timeout 5s explore")).toEqual({ ok: false, error: "`--model` needs a value" });
		expect(readCommandLine("--model a explore x --model b")).toEqual({ ok: false, error: "`--model` is given twice" });
	});

	it("reads durations and token counts, and refuses what they are not", () => {
		expect(readTimeout("90s")).toEqual({ ok: true, value: 90_000 });
		expect(readTimeout("45")).toEqual({ ok: true, value: 45_000 });
		expect(readTimeout("soon").ok).toBe(false);
		expect(readTokenBudget("50k")).toEqual({ ok: true, value: 50_000 });
		expect(readTokenBudget("1.5m")).toEqual({ ok: true, value: 1_500_000 });
		expect(readTokenBudget("0").ok).toBe(false);
	});
});

describe("argument completion", () => {
	const complete = completeLine(["flows"], ["--model", "--timeout"]);
	it("offers flow names where the name goes, flags where a flag is typed, nothing in the input", () => {
		expect(complete("exp")?.map((i) => i.value)).toEqual(["explore "]);
		expect(complete("--model p/m exp")?.map((i) => i.value)).toEqual(["--model p/m explore "]);
		expect(complete("--t")?.map((i) => i.value)).toEqual(["--timeout "]);
		expect(complete("explore how")).toBeNull();
		expect(complete("--model ")).toBeNull();
	});
});
