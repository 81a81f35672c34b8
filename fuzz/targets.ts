/**
 * What is fuzzed, and what every answer must be. Shared by `npm run fuzz` (fuzz/run.ts, 100,000 cases)
 * and the sample in `npm test` (test/language/fuzz-sample.test.ts), so the two can never drift apart.
 *
 * A target's `judge` returns what is wrong with one answer; a throw is a crash and is caught by the
 * harness. Every parser here promises never to throw and to answer with a value or positioned faults.
 */
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { loadRoster, PACKAGE_ROOT } from "../src/agents/index.ts";
import { type ChainSpec, formatChain, parseChain } from "../src/chain/index.ts";
import type { Fault } from "../src/faults/index.ts";
import {
	type Expr,
	formatDuration,
	parseAddress,
	parseCondition,
	parseDuration,
	readDuration,
	type SourceAt,
} from "../src/language/syntax/index.ts";
import type { CheckedFlow } from "../src/language/check/index.ts";
import { catalogueOptions, checkFlowText, type LoadOptions } from "../src/load/index.ts";
import { type HandoffDocument, parseHandoff, renderHandoff } from "../src/handoff/document.ts";
import { checkScriptKeys, readScript, stepsFor } from "../src/script/index.ts";
import { lineTable, type Range } from "../src/text/index.ts";
import { generateFlow } from "./flows.ts";
import { chainText, condition, duration, handoffDoc, mutate, scriptText } from "./pieces.ts";
import { answerProblem, faultProblem, linesOf, rangeProblem, type Window, wholeFile } from "./positions.ts";
import { Rng } from "./rng.ts";

/** How one case was answered: with a value, or with faults only. */
export type Answer = "value" | "faults";

/** The judgement of one case: what it was answered with, and what is wrong, if anything. */
export interface Verdict {
	answer: Answer;
	problem?: string;
}

export interface Target<T = unknown> {
	name: string;
	/** What the inputs are, for the table and the docs. */
	about: string;
	/** Cases in a default full run (they sum to 100,000 over the targets that count). */
	cases: number;
	arbitrary: fc.Arbitrary<T>;
	judge(input: T): Verdict;
	/** The input as a failure report prints it. */
	show(input: T): string;
	/**
	 * A known bug this target reproduces: its crashes are reported, and do not fail the run, until the
	 * bug is fixed. The sample test holds the same bug as an `it.fails`.
	 */
	knownBug?: string;
}

/** Nothing of a project or of `~/.pi` is read: only the package's own agents and flows. */
const nowhere = join(tmpdir(), "pi-flows-fuzz-nowhere");
const env: NodeJS.ProcessEnv = { PI_CODING_AGENT_DIR: join(nowhere, "agent") };
const scope = { user: false, project: false };
export const roster = loadRoster(nowhere, scope, env);
const shippedFlows: LoadOptions = catalogueOptions(nowhere, scope, env);
// Callees are the shipped flows and never change, so one judgement of each serves every case.
const calleeCache: NonNullable<LoadOptions["cache"]> = new Map();
const loadOptions: LoadOptions = { ...shippedFlows, cache: calleeCache };

/** The shipped flows, the corpus every mutation may start from. */
export const SHIPPED: readonly { file: string; text: string }[] = readdirSync(join(PACKAGE_ROOT, "flows"))
	.filter((f) => f.endsWith(".md"))
	.sort()
	.map((f) => ({ file: f, text: readFileSync(join(PACKAGE_ROOT, "flows", f), "utf8") }));

/** JSON with sorted keys: two documents are the same whatever order their fields were set in. */
function canonical(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v && typeof v === "object" && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: v,
	);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

const seed = fc.integer({ min: 0, max: 0x7fffffff });
const anyText = (maxLength: number) => fc.string({ unit: "binary", maxLength });

/** A flow file's answer: the checker's whole promise (value xor faults, faults sorted, in the file). */
function judgeFlow(text: string, file: string): Verdict {
	const r: { value?: CheckedFlow; faults: Fault[] } = checkFlowText(text, file, roster, loadOptions);
	const answer: Answer = r.value ? "value" : "faults";
	const none = answerProblem(r);
	if (none) return { answer, problem: none };
	if (r.value && r.faults.length) return { answer, problem: `a CheckedFlow with ${r.faults.length} faults beside it` };
	for (let i = 1; i < r.faults.length; i++) {
		if (r.faults[i].offset < r.faults[i - 1].offset)
			return { answer, problem: `faults out of file order: ${r.faults[i - 1].code} then ${r.faults[i].code}` };
	}
	const problem = faultProblem(r.faults, wholeFile(text, file));
	return problem ? { answer, problem } : { answer };
}

const flowGenerated: Target<{ seed: number; size: number; slips: number }> = {
	name: "flow-generated",
	about: "generated flow files, every node kind, every YAML style, 0–30% slipped values",
	cases: 13_000,
	arbitrary: fc.record({ seed, size: fc.integer({ min: 1, max: 12 }), slips: fc.constantFrom(0, 0, 0.02, 0.1, 0.3) }),
	judge: ({ seed: s, size, slips }) => judgeFlow(generateFlow(new Rng(s), "gen", size, slips).text, "gen.md"),
	show: ({ seed: s, size, slips }) => JSON.stringify(generateFlow(new Rng(s), "gen", size, slips).text),
};

type Mutated = { from: number; seed: number; edits: number } | { raw: string; fenced: boolean };

function mutatedText(m: Mutated): { text: string; file: string } {
	if ("raw" in m) return { text: m.fenced ? `---\n${m.raw}\n---\n` : m.raw, file: "raw.md" };
	const r = new Rng(m.seed);
	// Starts below the corpus's length name a shipped flow; the rest start from a generated one.
	const base =
		m.from < SHIPPED.length
			? SHIPPED[m.from]
			: { file: "gen.md", text: generateFlow(r, "gen", r.between(1, 10), 0).text };
	return { text: mutate(r, base.text, m.edits), file: base.file };
}

const flowMutated: Target<Mutated> = {
	name: "flow-mutated",
	about: "shipped and generated flows after 1–6 edits; arbitrary text, bare and fenced",
	cases: 13_000,
	arbitrary: fc.oneof(
		{
			weight: 8,
			arbitrary: fc.record({ from: fc.nat({ max: SHIPPED.length * 2 }), seed, edits: fc.integer({ min: 1, max: 6 }) }),
		},
		{ weight: 1, arbitrary: fc.record({ raw: anyText(300), fenced: fc.boolean() }) },
	),
	judge: (m) => {
		const { text, file } = mutatedText(m);
		return judgeFlow(text, file);
	},
	show: (m) => JSON.stringify(mutatedText(m)),
};

/** Where a sub-parser's text sits: after a prefix, so a range counted from 0 instead of `base` shows. */
const PREFIXES = ["", "---\nnodes:\n  - id: gate\n    when: ", "a: 1\r\nloop: ", "😀é: ", "\r", "x\n\n\n  "];

interface Placed {
	text: string;
	prefix: number;
}

function place(p: Placed): { at: SourceAt; window: Window } {
	const prefix = PREFIXES[p.prefix % PREFIXES.length];
	const file = `${prefix}${p.text}\n---\n`;
	const at: SourceAt = { file: "f.md", base: prefix.length, table: lineTable(file), path: "n.when" };
	return { at, window: { lines: linesOf(file), file: "f.md", from: prefix.length, to: prefix.length + p.text.length } };
}

/** Every range in a condition tree, so a node built at the wrong offset cannot hide under a right root. */
function exprRanges(e: Expr, out: [string, Range][] = []): [string, Range][] {
	out.push([e.kind, e.range]);
	switch (e.kind) {
		case "address":
			for (const s of e.segments) out.push([`segment ${s.name}`, s.range]);
			break;
		case "list":
			for (const item of e.items) exprRanges(item, out);
			break;
		case "unary":
			out.push(["operator", e.opRange]);
			exprRanges(e.operand, out);
			break;
		case "binary":
			out.push(["operator", e.opRange]);
			exprRanges(e.left, out);
			exprRanges(e.right, out);
			break;
		case "call":
			out.push(["function name", e.nameRange]);
			exprRanges(e.arg, out);
			break;
		case "method":
			out.push(["method name", e.nameRange]);
			exprRanges(e.target, out);
			exprRanges(e.arg, out);
			break;
		case "macro":
			out.push(["macro name", e.nameRange], ["variable", e.variable.range]);
			exprRanges(e.target, out);
			exprRanges(e.body, out);
			break;
	}
	return out;
}

function judgeExpr(p: Placed, parse: typeof parseCondition): Verdict {
	const { at, window } = place(p);
	const r = parse(p.text, at);
	const answer: Answer = r.value ? "value" : "faults";
	const problem =
		answerProblem(r) ??
		(r.value && r.faults.length ? "a value with faults beside it" : undefined) ??
		faultProblem(r.faults, window);
	if (problem) return { answer, problem };
	if (r.value)
		for (const [what, range] of exprRanges(r.value)) {
			const bad = rangeProblem(range, window, what);
			if (bad) return { answer, problem: bad };
		}
	return { answer };
}

const TOKENS = [
	"a",
	"plan",
	".",
	"ok",
	"output",
	"s",
	"n",
	"items",
	"ask-next",
	"size",
	"has",
	"all",
	"exists",
	"contains",
	"startsWith",
	"endsWith",
	"(",
	")",
	"[",
	"]",
	"{",
	"}",
	",",
	"?",
	":",
	"=",
	"==",
	"!=",
	"!",
	"<",
	"<=",
	">",
	">=",
	"&",
	"&&",
	"|",
	"||",
	"+",
	"-",
	"*",
	"/",
	"%",
	"in",
	"null",
	"true",
	"false",
	"if",
	"1",
	"0",
	"1.5e3",
	'"s"',
	"'t'",
	'"',
	"'",
	"\\",
	"\\n",
	" ",
	"\n",
	"\r\n",
	"\t",
	"é",
	"😀",
	"\uD800",
];
const soup = (tokens: readonly string[], maxLength: number) =>
	fc.array(fc.constantFrom(...tokens), { maxLength }).map((parts) => parts.join(""));

const exprText = (depth: number) =>
	fc.oneof(
		{
			weight: 5,
			arbitrary: fc
				.tuple(seed, fc.integer({ min: 0, max: depth }))
				.map(([s, d]) => condition(new Rng(s), ["plan", "review", "tests", "x"], d)),
		},
		{ weight: 3, arbitrary: soup(TOKENS, 16) },
		{
			weight: 1,
			arbitrary: fc
				.tuple(seed, fc.integer({ min: 0, max: depth }))
				.map(([s, d]) => mutate(new Rng(s), condition(new Rng(s + 1), ["plan", "x"], d), 3)),
		},
		{ weight: 1, arbitrary: anyText(40) },
	);

const placed = (text: fc.Arbitrary<string>) => fc.record({ text, prefix: fc.nat({ max: PREFIXES.length - 1 }) });

const conditionTarget: Target<Placed> = {
	name: "condition",
	about: "conditions from a grammar generator (≤ 4 levels), token soup, mutated and arbitrary text, at six offsets",
	cases: 18_000,
	arbitrary: placed(exprText(4)),
	judge: (p) => judgeExpr(p, parseCondition),
	show: (p) => JSON.stringify(p),
};

const addressTarget: Target<Placed> = {
	name: "address",
	about: "addresses and everything a condition is, read as an address",
	cases: 8_000,
	arbitrary: placed(
		fc.oneof(
			{
				weight: 2,
				arbitrary: soup(["a", "plan", ".", "output", "x_1", "item", "-", " ", "..", "é", "(", "1", "\n"], 8),
			},
			{ weight: 1, arbitrary: exprText(1) },
		),
	),
	judge: (p) => judgeExpr(p, parseAddress as typeof parseCondition),
	show: (p) => JSON.stringify(p),
};

const durationTarget: Target<Placed> = {
	name: "duration",
	about: "durations, their usual mistakes, digit-and-unit soup and arbitrary text",
	cases: 12_000,
	arbitrary: placed(
		fc.oneof(
			{ weight: 4, arbitrary: seed.map((s) => duration(new Rng(s))) },
			{ weight: 2, arbitrary: soup(["0", "1", "9", "30", "d", "h", "m", "s", "ms", ".", "-", " ", "x", "H", "é"], 8) },
			{ weight: 1, arbitrary: anyText(16) },
		),
	),
	judge: (p) => {
		const ms = parseDuration(p.text);
		const { at, window } = place(p);
		const r = readDuration(p.text, at);
		const answer: Answer = r.value !== undefined ? "value" : "faults";
		if (ms !== undefined && !(Number.isSafeInteger(ms) && ms > 0))
			return { answer, problem: `parseDuration gave ${ms}` };
		if (r.value !== ms) return { answer, problem: `readDuration gave ${r.value}, parseDuration ${ms}` };
		const problem = answerProblem(r) ?? faultProblem(r.faults, window);
		if (problem) return { answer, problem };
		// What is read prints back in the notation, and the print reads back to the same milliseconds.
		if (ms !== undefined && parseDuration(formatDuration(ms)) !== ms)
			return { answer, problem: `${ms}ms prints as ${formatDuration(ms)}, which does not read back` };
		return { answer };
	},
	show: (p) => JSON.stringify(p),
};

interface ChainCase {
	text: string;
	prefix: number;
	globals?: string;
}

const withoutRanges = (spec: ChainSpec) =>
	canonical({ steps: spec.steps.map(({ range: _range, ...rest }) => rest), globals: spec.globals });

const chainTarget: Target<ChainCase> = {
	name: "chain",
	about: "chains with refs and flags, mutated chains, token soup; with and without a globals string",
	cases: 14_000,
	arbitrary: fc.record(
		{
			text: fc.oneof(
				{
					weight: 6,
					arbitrary: fc.tuple(seed, fc.constantFrom(0, 0, 0.05, 0.3)).map(([s, slips]) => chainText(new Rng(s), slips)),
				},
				{ weight: 2, arbitrary: seed.map((s) => mutate(new Rng(s), chainText(new Rng(s + 1)), 3)) },
				{
					weight: 1,
					arbitrary: soup(
						[
							"@",
							"a",
							"->",
							"--",
							"--model",
							"a/b",
							"--retry",
							"2",
							'"',
							"'",
							"\\",
							":",
							"flow:",
							"template:",
							"../",
							" ",
							"\n",
							"é",
							"😀",
						],
						14,
					),
				},
				{ weight: 1, arbitrary: anyText(40) },
			),
			prefix: fc.nat({ max: PREFIXES.length - 1 }),
			globals: fc.oneof(
				{
					weight: 3,
					arbitrary: fc.constantFrom(
						"--retry 2 --continue-on-error",
						"--global-model a/b --max-history 3",
						"--budget-total 10",
						"",
					),
				},
				{
					weight: 1,
					arbitrary: fc.constantFrom(
						"--budget-total 10 --budget-warning 20",
						"-> @a",
						"--model",
						"--retry 2 --retry 3",
						"é",
					),
				},
			),
		},
		{ requiredKeys: ["text", "prefix"] },
	),
	judge: (c) => {
		const prefix = PREFIXES[c.prefix % PREFIXES.length];
		const fileText = `${prefix}${c.text}\n`;
		const window: Window = {
			lines: linesOf(fileText),
			file: "f.md",
			from: prefix.length,
			to: prefix.length + c.text.length,
		};
		const r = parseChain(c.text, {
			file: "f.md",
			baseOffset: prefix.length,
			lineTable: lineTable(fileText),
			...(c.globals !== undefined ? { globals: { text: c.globals, file: "globals" } } : {}),
		});
		const answer: Answer = r.value ? "value" : "faults";
		const none = answerProblem(r) ?? (r.value && r.faults.length ? "a value with faults beside it" : undefined);
		if (none) return { answer, problem: none };
		const own = r.faults.filter((f) => f.file === "f.md");
		const problem =
			faultProblem(own, window) ??
			(c.globals !== undefined
				? faultProblem(
						r.faults.filter((f) => f.file !== "f.md"),
						{ ...wholeFile(c.globals, "globals") },
					)
				: undefined);
		if (problem) return { answer, problem };
		if (r.value) {
			for (const s of r.value.steps) {
				const bad = rangeProblem(s.range, window, "step");
				if (bad) return { answer, problem: bad };
			}
			// What reads prints, and the print reads back to the same spec.
			const printed = formatChain(r.value);
			const again = parseChain(printed, { file: "p" });
			if (!again.value)
				return {
					answer,
					problem: `the printed chain ${JSON.stringify(printed)} does not read back: ${again.faults[0]?.code} ${again.faults[0]?.message}`,
				};
			if (withoutRanges(again.value) !== withoutRanges(r.value))
				return { answer, problem: `the printed chain ${JSON.stringify(printed)} reads back differently` };
		}
		return { answer };
	},
	show: (c) => JSON.stringify(c),
};

const SCRIPT_IDS = ["look", "answer", "plan", "code", "review"];

const scriptTarget: Target<{ kind: number; seed: number } | { raw: string }> = {
	name: "script",
	about: "scripted-model scripts with every step key, mutated scripts and arbitrary text",
	cases: 10_000,
	arbitrary: fc.oneof(
		{ weight: 6, arbitrary: fc.record({ kind: fc.nat({ max: 3 }), seed }) },
		{ weight: 1, arbitrary: fc.record({ raw: anyText(120) }) },
	),
	judge: (c) => {
		const text = scriptOf(c);
		const r = readScript(text, "s.yaml");
		const answer: Answer = r.value ? "value" : "faults";
		const window = wholeFile(text, "s.yaml");
		const problem =
			answerProblem(r) ??
			(r.value && r.faults.length ? "a value with faults beside it" : undefined) ??
			faultProblem(r.faults, window);
		if (problem) return { answer, problem };
		if (r.value) {
			for (const [key, steps] of r.value.turns) {
				for (const step of steps) {
					const bad = rangeProblem(step.range, window, `step of ${key}`);
					if (bad) return { answer, problem: bad };
				}
			}
			const keys = checkScriptKeys(r.value, ["look", "deliver/work/code", "answer"]);
			const badKey = faultProblem(keys, window);
			if (badKey) return { answer, problem: `checkScriptKeys: ${badKey}` };
			for (const visit of ["look", "deliver#2/work[1]/code", "x", ""]) stepsFor(r.value, visit);
		}
		return { answer };
	},
	show: (c) => JSON.stringify(scriptOf(c)),
};

function scriptOf(c: { kind: number; seed: number } | { raw: string }): string {
	if ("raw" in c) return c.raw;
	const r = new Rng(c.seed);
	const text = scriptText(r, SCRIPT_IDS, c.kind === 1 ? 0 : 0.15);
	return c.kind === 0 ? mutate(r, text, 3) : text;
}

type HandoffCase = { seed: number; edits: number } | { raw: string };

function handoffOf(c: HandoffCase): { text: string; doc?: HandoffDocument } {
	if ("raw" in c) return { text: c.raw };
	const r = new Rng(c.seed);
	const doc = handoffDoc(r);
	const text = renderHandoff(doc);
	return c.edits === 0 ? { text, doc } : { text: mutate(r, text, c.edits) };
}

const handoffTarget: Target<HandoffCase> = {
	name: "handoff",
	about: "rendered handoff documents (read back exactly), the same after 1–4 edits, arbitrary text",
	cases: 12_000,
	arbitrary: fc.oneof(
		{ weight: 6, arbitrary: fc.record({ seed, edits: fc.integer({ min: 0, max: 4 }) }) },
		{ weight: 1, arbitrary: fc.record({ raw: anyText(200) }) },
	),
	judge: (c) => {
		const { text, doc } = handoffOf(c);
		const r = parseHandoff(text);
		const answer: Answer = r.value ? "value" : "faults";
		const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n").length;
		for (const p of r.problems) {
			// A missing or empty value is placed where it would be written: the line after the last, when
			// its heading or the footer rule ends the text.
			if (!Number.isInteger(p.line) || p.line < 1 || p.line > lines + 1)
				return { answer, problem: `${p.code} at line ${p.line} of ${lines}` };
			if (!p.message) return { answer, problem: `${p.code} without a message` };
		}
		if (!r.value && !r.problems.some((p) => p.severity === "error"))
			return { answer, problem: "no value and no error" };
		if (r.value && r.problems.some((p) => p.severity === "error"))
			return { answer, problem: "a value beside an error" };
		// A rendered document reads back as it was; anything read renders and reads back the same.
		if (doc && !same(r.value, doc))
			return { answer, problem: `the rendered document reads back as ${JSON.stringify(r.value)}` };
		if (r.value) {
			const again = parseHandoff(renderHandoff(r.value));
			if (!same(again.value, r.value))
				return { answer, problem: `read, rendered and read again it is ${JSON.stringify(again.value)}` };
		}
		return { answer };
	},
	show: (c) => JSON.stringify(handoffOf(c).text),
};

/** Ways to nest a condition, each refused or read alike at any depth. */
const NESTINGS: readonly ((n: number) => string)[] = [
	(n) => `${"(".repeat(n)}a${")".repeat(n)}`,
	(n) => `${"[".repeat(n)}${"]".repeat(n)}`,
	(n) => `${"size(".repeat(n)}a${")".repeat(n)}`,
	(n) => `${"(".repeat(n)}a`,
	(n) => `${"!".repeat(n)}a`,
	(n) => Array.from({ length: n }, (_, i) => `a${i}`).join(" && "),
];

const nestingTarget: Target<{ shape: number; depth: number }> = {
	name: "condition-nesting",
	about: "conditions nested 1–150 deep: parentheses, lists, size(), unclosed, negations, long chains",
	cases: 600,
	arbitrary: fc.record({ shape: fc.nat({ max: NESTINGS.length - 1 }), depth: fc.integer({ min: 1, max: 150 }) }),
	judge: ({ shape, depth }) => judgeExpr({ text: NESTINGS[shape](depth), prefix: 0 }, parseCondition),
	show: ({ shape, depth }) =>
		`${JSON.stringify(NESTINGS[shape](depth).slice(0, 60) + (NESTINGS[shape](depth).length > 60 ? "…" : ""))} (${depth} deep)`,
};

/** Every target, in the order the table prints them. */
export const TARGETS: readonly Target[] = [
	flowGenerated,
	flowMutated,
	conditionTarget,
	addressTarget,
	durationTarget,
	chainTarget,
	scriptTarget,
	handoffTarget,
	nestingTarget,
] as Target[];
