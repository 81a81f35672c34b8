// fast-check generators of well-formed chain specs and of chain-like text, shared by the property tests.
import fc from "fast-check";
import { type ChainGlobals, type ChainSpec, type ChainStep, THINKING_LEVELS } from "../../src/chain/index.ts";

const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}(?:[.-][A-Za-z0-9_]{1,4}){0,2}$/);
const templateSegment = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,5}(?:\.[A-Za-z0-9_]{1,3})?$/);
const GOAL_CHARS = ["a", "b", " ", "-", ">", '"', "'", "\\", "\n", "@", ":", "é", "😀", "\t", "/"];
const goal = fc
	.array(fc.constantFrom(...GOAL_CHARS), { minLength: 1, maxLength: 20 })
	.map((cs) => cs.join(""))
	.filter((t) => t.trim() !== "");
const thinking = fc.constantFrom(...THINKING_LEVELS);
const model = fc.oneof(
	fc.record(
		{
			provider: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
			id: fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,10}(?:\/[a-z0-9.-]{1,5})?$/),
			thinking,
		},
		{ requiredKeys: ["provider", "id"] },
	),
	// A name as pi reads it without a provider: `sonnet`, `opus:high`.
	fc.record({ id: fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,10}$/), thinking }, { requiredKeys: ["id"] }),
);
const skills = fc.uniqueArray(fc.stringMatching(/^[a-z0-9_][a-z0-9_.-]{0,8}$/), { minLength: 1, maxLength: 3 });
const count = fc.integer({ min: 0, max: 1_000_000 });
const positive = fc.integer({ min: 1, max: 10 ** 9 });
const NO_RANGE = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

const ref = fc.oneof(
	fc.record({ kind: fc.constant("agent" as const), name, label: name, goal }, { requiredKeys: ["kind", "name"] }),
	fc.record({ kind: fc.constant("flow" as const), name }),
	fc.record({
		kind: fc.constant("template" as const),
		name: fc.array(templateSegment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/")),
	}),
	fc.record({ kind: fc.constant("goal" as const), text: goal }),
);

const step: fc.Arbitrary<ChainStep> = fc
	.record(
		{ ref, model, skills, thinking, timeoutMs: positive, retry: count, continueOnError: fc.boolean() },
		{ requiredKeys: ["ref"] },
	)
	.map((s) => ({ ...s, range: NO_RANGE }));

const globals: fc.Arbitrary<ChainGlobals> = fc
	.record(
		{
			model,
			skills,
			thinking,
			continueOnError: fc.constant(true),
			budgetTotal: positive,
			retry: count,
			backoffMs: positive,
			maxHistory: count,
		},
		{ requiredKeys: [] },
	)
	.chain((g) => {
		if (g.budgetTotal === undefined) return fc.constant(g);
		const warning = fc.option(fc.integer({ min: 1, max: g.budgetTotal }), { nil: undefined });
		return warning.map((w) => (w === undefined ? g : { ...g, budgetWarning: w }));
	});

/** A well-formed chain spec (ranges are placeholders). */
export const chainSpec: fc.Arbitrary<ChainSpec> = fc
	.record({ steps: fc.array(step, { minLength: 1, maxLength: 4 }), globals })
	.filter((s) => labelsApart(s.steps))
	.map((s) => ({ ...s, range: NO_RANGE }));

/** No two labels alike, and no label another step's plain `@name`: the parser refuses both. */
function labelsApart(steps: ChainStep[]): boolean {
	const labels = steps.flatMap((s) => (s.ref.kind === "agent" && s.ref.label !== undefined ? [s.ref.label] : []));
	const plain = steps.flatMap((s) => (s.ref.kind === "agent" && s.ref.label === undefined ? [s.ref.name] : []));
	return new Set(labels).size === labels.length && !labels.some((l) => plain.includes(l));
}

const ALPHABET = ["@", "-", ">", "-", '"', "'", "\\", ":", "/", ",", "=", " ", "\n", "a", "b", "1", "0", "."];
ALPHABET.push("é", "😀", "\u0000");
const WORDS = [
	"->",
	"--",
	"--model",
	"--retry",
	"--skill",
	"--thinking",
	"--timeout",
	"--continue-on-error",
	"--global-model",
	"--budget-total",
	"--budget-warning",
	"--backoff",
	"flow:",
	"workflow:",
	"template:",
	"../",
	"@a",
	"p/m:high",
	"90s",
	"hgih",
];

/** Text made of the chain's own characters and words, so it often comes close to a chain. */
export const chainish: fc.Arbitrary<string> = fc
	.array(
		fc.oneof(
			fc.constantFrom(...ALPHABET),
			fc.constantFrom(...WORDS).map((w) => ` ${w} `),
		),
		{ maxLength: 40 },
	)
	.map((parts) => parts.join(""));

/** Edits applied to a valid chain: insert, delete and duplicate slices, so nearly-right chains are tried. */
export function mutate(text: string): fc.Arbitrary<string> {
	const piece = fc.oneof(fc.constantFrom(...ALPHABET), fc.constantFrom(...WORDS));
	const edit = fc.tuple(fc.nat(), fc.nat({ max: 6 }), piece, fc.nat({ max: 2 }));
	return fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) =>
		edits.reduce((t, [at, len, insert, kind]) => {
			const i = t.length === 0 ? 0 : at % (t.length + 1);
			if (kind === 0) return t.slice(0, i) + insert + t.slice(i);
			if (kind === 1) return t.slice(0, i) + t.slice(i + len);
			return t.slice(0, i) + t.slice(i, i + len) + t.slice(i);
		}, text),
	);
}
