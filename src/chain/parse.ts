/**
 * Reads a chain such as `@research -> @implement --model anthropic/claude-sonnet-4-5:high -> @review`.
 * Input: the chain text, where it sits, and optionally a separate string of chain-wide flags.
 * Output: a {@link ChainSpec}, or every fault in order, one per mistake; it never throws.
 */
import { type Fault, fault, sortFaults } from "../faults/index.ts";
import type { Range } from "../text/index.ts";
import { firstHere, report, type Sink, type Source, sink, source } from "./report.ts";
import { readChain, readGlobals } from "./steps.ts";
import { type Segment, tokenize } from "./tokens.ts";
import { countWords, MAX_CHAIN_CHARS } from "../limits/index.ts";
import type { ChainSpec, ParseChainOptions } from "./types.ts";

/** The result of reading a chain: a value exactly when there are no faults. */
export interface ParsedChain {
	value?: ChainSpec;
	faults: Fault[];
	/** Where each chain-wide flag's value is written (its flag, for a switch), by flag name. */
	at?: ReadonlyMap<string, Range>;
}

function segmentsOf(src: Source, into: Sink): Segment[] | undefined {
	const tokens = tokenize(src.text);
	if (tokens.ok) return tokens.segments;
	// Only reachable if the grammar stops covering every input; the range runs to the end of the token.
	const rest = src.text.slice(tokens.at).search(/\s|$/);
	const span = { start: tokens.at, end: tokens.at + rest };
	report(into, src, "chain-syntax", span, src.path, `Expected ${tokens.expected}.`);
	return undefined;
}

function readGlobalsText(src: Source, into: Sink): void {
	const segments = segmentsOf(src, into);
	if (!segments) return;
	readGlobals(segments[0].tokens, src, into);
	const arrow = segments[1]?.arrow;
	if (arrow) {
		const span = { start: arrow.start, end: src.text.length };
		report(into, src, "chain-syntax", span, src.path, "Steps among the chain-wide flags.", {
			hint: "The globals string holds flags only; write steps in the chain.",
		});
	}
}

function checkBudget(into: Sink, path: string): void {
	const { budgetTotal, budgetWarning } = into.globals;
	if (budgetTotal === undefined || budgetWarning === undefined || budgetWarning <= budgetTotal) return;
	const warning = into.globalsFirstGiven.get("budget-warning");
	const total = into.globalsFirstGiven.get("budget-total");
	if (!warning?.value || !total) return;
	const message = `The budget warning (${budgetWarning} tokens) is above the budget total (${budgetTotal}).`;
	into.faults.push(
		fault("chain-flag-value", warning.file, warning.value, `${path}.budget-warning`, message, {
			hint: "Warn at or below the total.",
			expected: [String(budgetTotal)],
			related: firstHere(total, "The total is given here."),
		}),
	);
}

/**
 * Reads a chain and, when `options.globals` is given, a separate string of chain-wide flags. Positions are
 * absolute in `options.file` when `baseOffset` and `lineTable` are given, else counted from the text.
 */
export function parseChain(text: string, options: ParseChainOptions): ParsedChain {
	const into = sink();
	const src = source(text, options, options.file);
	if (text.length > MAX_CHAIN_CHARS) {
		// The chain grammar's work grows with the text (a 20,000-step chain took 39 s): refuse before it runs.
		const span = { start: MAX_CHAIN_CHARS, end: text.length };
		const message = `this chain is ${countWords(text.length)} characters long; one is read up to ${countWords(MAX_CHAIN_CHARS)}`;
		report(into, src, "chain-too-long", span, src.path, message, {
			hint: "split the work into flows that call each other (`flow:` nodes), each with its own chain",
		});
		return { faults: into.faults };
	}
	const segments = segmentsOf(src, into);
	const steps = segments ? readChain(segments, src, into) : [];
	if (options.globals) {
		const { text: globalsText, ...where } = options.globals;
		readGlobalsText(source(globalsText, { path: options.path, ...where }, options.file), into);
	}
	checkBudget(into, src.path);
	const faults = sortFaults(into.faults);
	if (faults.length > 0) return { faults };
	const at = new Map([...into.globalsFirstGiven].map(([name, seen]) => [name, seen.value ?? seen.flag]));
	return { value: { steps, globals: into.globals, range: src.range({ start: 0, end: text.length }) }, faults, at };
}

/**
 * The chain with chain-wide flags given apart (a command line's `--global-model X` beside the chain) written
 * into it: after its own `--` section if it has one, else after a new ` -- `. The chain's own characters keep
 * their offsets, so a fault inside them still points where the user typed it.
 */
export function withGlobals(text: string, globals: string): string {
	if (globals.trim() === "") return text;
	const tokens = tokenize(text);
	const marked = tokens.ok && tokens.segments.some((s) => s.tokens.some((t) => t.kind === "globals"));
	return `${text}${marked ? " " : " -- "}${globals}`;
}
