// What a well-formed chain reads as: references, every flag, chain-wide flags, and ranges.
import { describe, expect, it } from "vitest";
import { type ChainSpec, type ChainStep, parseChain } from "../../src/chain/index.ts";

function read(text: string, globals?: string): ChainSpec {
	const r = parseChain(text, { file: "chain.txt", ...(globals === undefined ? {} : { globals: { text: globals } }) });
	expect(r.faults).toEqual([]);
	if (!r.value) throw new Error("no value");
	return r.value;
}

const bare = (step: ChainStep) => {
	const { range: _range, ...rest } = step;
	return rest;
};

describe("step references", () => {
	it("reads the example chain", () => {
		const spec = read("@research -> @implement --model anthropic/claude-sonnet-4-5:high -> @review");
		expect(spec.steps.map(bare)).toEqual([
			{ ref: { kind: "agent", name: "research" } },
			{
				ref: { kind: "agent", name: "implement" },
				model: { provider: "anthropic", id: "claude-sonnet-4-5", thinking: "high" },
			},
			{ ref: { kind: "agent", name: "review" } },
		]);
		expect(spec.globals).toEqual({});
	});

	it.each([
		["@fast-research", { kind: "agent", name: "fast-research" }],
		["@v1.2-review", { kind: "agent", name: "v1.2-review" }],
		["@research:gather", { kind: "agent", name: "research", label: "gather" }],
		["flow:build", { kind: "flow", name: "build" }],
		["workflow:build", { kind: "flow", name: "build" }],
		["template:planning", { kind: "template", name: "planning" }],
		["template:review/deep", { kind: "template", name: "review/deep" }],
		['"Research AI trends"', { kind: "goal", text: "Research AI trends" }],
		["'Research AI trends'", { kind: "goal", text: "Research AI trends" }],
		['"a -> b -> c"', { kind: "goal", text: "a -> b -> c" }],
		['"say \\"hi\\" to C:\\\\tmp"', { kind: "goal", text: 'say "hi" to C:\\tmp' }],
		["'it\\'s'", { kind: "goal", text: "it's" }],
		['"keeps \\n as written"', { kind: "goal", text: "keeps \\n as written" }],
	])("%s", (text, ref) => {
		expect(read(text).steps[0].ref).toEqual(ref);
	});

	it("splits on -> only outside quotes, with or without spaces", () => {
		const spec = read("\"x -> y\"->@a->'p -> q'");
		expect(spec.steps.map((s) => s.ref)).toEqual([
			{ kind: "goal", text: "x -> y" },
			{ kind: "agent", name: "a" },
			{ kind: "goal", text: "p -> q" },
		]);
	});

	it("spans each step from its reference to its last flag", () => {
		const text = '@a   ->  @b --retry 2  -> "g"';
		const [a, b, g] = read(text).steps;
		expect([a.range.start.column, a.range.end.column]).toEqual([1, 3]);
		expect(text.slice(b.range.start.offset, b.range.end.offset)).toBe("@b --retry 2");
		expect(text.slice(g.range.start.offset, g.range.end.offset)).toBe('"g"');
	});
});

describe("step flags", () => {
	it.each<[string, Partial<ChainStep>]>([
		["--model anthropic/claude-sonnet-4-5", { model: { provider: "anthropic", id: "claude-sonnet-4-5" } }],
		["--model openai/gpt-5:xhigh", { model: { provider: "openai", id: "gpt-5", thinking: "xhigh" } }],
		["--model openai/gpt-5:deep", { model: { provider: "openai", id: "gpt-5", thinking: "high" } }],
		["--model openrouter/meta-llama/llama-3", { model: { provider: "openrouter", id: "meta-llama/llama-3" } }],
		["--model openrouter/qwen/qwen3:free", { model: { provider: "openrouter", id: "qwen/qwen3:free" } }],
		['--model "anthropic/claude-opus-4"', { model: { provider: "anthropic", id: "claude-opus-4" } }],
		["--skill coding", { skills: ["coding"] }],
		["--skill a,b,c-d", { skills: ["a", "b", "c-d"] }],
		['--skill "a, b"', { skills: ["a", "b"] }],
		["--thinking off", { thinking: "off" }],
		["--thinking minimal", { thinking: "minimal" }],
		["--thinking fast", { thinking: "low" }],
		["--thinking standard", { thinking: "medium" }],
		["--thinking deep", { thinking: "high" }],
		["--timeout 60", { timeoutMs: 60_000 }],
		["--timeout 90s", { timeoutMs: 90_000 }],
		["--timeout 10m", { timeoutMs: 600_000 }],
		["--timeout 1h30m", { timeoutMs: 5_400_000 }],
		["--timeout 500ms", { timeoutMs: 500 }],
		["--timeout 1d", { timeoutMs: 86_400_000 }],
		["--retry 0", { retry: 0 }],
		["--retry 3", { retry: 3 }],
		["--continue-on-error", { continueOnError: true }],
	])("@a %s", (flags, fields) => {
		expect(bare(read(`@a ${flags}`).steps[0])).toEqual({ ref: { kind: "agent", name: "a" }, ...fields });
	});

	it("reads every step flag at once, in any order", () => {
		const step = read("@a --continue-on-error --retry 1 --timeout 2m --thinking low --skill x --model p/m").steps[0];
		expect(bare(step)).toEqual({
			ref: { kind: "agent", name: "a" },
			model: { provider: "p", id: "m" },
			skills: ["x"],
			thinking: "low",
			timeoutMs: 120_000,
			retry: 1,
			continueOnError: true,
		});
	});

	it("keeps flags on the step they follow", () => {
		const spec = read("@a --retry 1 -> @b --continue-on-error -> @c");
		expect(spec.steps.map(bare)).toEqual([
			{ ref: { kind: "agent", name: "a" }, retry: 1 },
			{ ref: { kind: "agent", name: "b" }, continueOnError: true },
			{ ref: { kind: "agent", name: "c" } },
		]);
		expect(spec.globals).toEqual({});
	});
});

describe("chain-wide flags", () => {
	const ALL =
		"--global-model openai/gpt-5:low --global-skill a,b --global-thinking deep --budget-total 100000 " +
		"--budget-warning 80000 --retry 2 --backoff 1m30s --max-history 10 --continue-on-error";
	const EXPECTED = {
		model: { provider: "openai", id: "gpt-5", thinking: "low" },
		skills: ["a", "b"],
		thinking: "high",
		budgetTotal: 100_000,
		budgetWarning: 80_000,
		retry: 2,
		backoffMs: 90_000,
		maxHistory: 10,
		continueOnError: true,
	};

	it("reads every one after --", () => {
		const spec = read(`@a -> @b -- ${ALL}`);
		expect(spec.globals).toEqual(EXPECTED);
		expect(spec.steps.map(bare)).toEqual([
			{ ref: { kind: "agent", name: "a" } },
			{ ref: { kind: "agent", name: "b" } },
		]);
	});

	it("reads every one from a separate globals string", () => {
		expect(read("@a -> @b", ALL).globals).toEqual(EXPECTED);
	});

	it("applies global-only flags wherever they stand", () => {
		const spec = read("@a --global-model p/m -> @b --budget-total 5 --retry 1");
		expect(spec.globals).toEqual({ model: { provider: "p", id: "m" }, budgetTotal: 5 });
		expect(spec.steps[1].retry).toBe(1);
	});

	it("merges the chain's -- section with the globals string", () => {
		const spec = read("@a -- --retry 1", "--continue-on-error --backoff 500ms");
		expect(spec.globals).toEqual({ retry: 1, continueOnError: true, backoffMs: 500 });
	});

	it("accepts a warning equal to the total, and a warning alone", () => {
		expect(read("@a -- --budget-total 10 --budget-warning 10").globals).toEqual({ budgetTotal: 10, budgetWarning: 10 });
		expect(read("@a -- --budget-warning 10").globals).toEqual({ budgetWarning: 10 });
	});
});
