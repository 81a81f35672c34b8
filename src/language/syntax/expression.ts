/**
 * Parses the condition language and addresses.
 * Input: the text of one YAML value and where it sits in its file. Output: an {@link Expr} with absolute
 * ranges, or one fault (only one: after a syntax error the rest of the text is guesswork).
 *   parseCondition("plan.ok && x = 1", at) → faults: condition-syntax at the `=`, "equality is `==`"
 */
import { type Fault, type FaultCode, fault } from "../../faults/index.ts";
import { diagnose } from "./diagnose.ts";
import type { AddressExpr, Expr } from "./expr.ts";
import { expressionGrammar } from "./grammars.ts";
import { rangeIn, type SourceAt } from "./source-at.ts";
import { toTree } from "./tree.ts";
import { countWords, MAX_EXPRESSION_CHARS } from "../../limits/index.ts";

const LONG_HINT = "compute the parts in earlier nodes (an agent's output, a check) and test their results here";

/** A parse result: a value when there are no faults, as the reader's `{ value, faults }`. */
export interface Parsed<T> {
	value?: T;
	faults: Fault[];
}

/**
 * How deep parentheses and list brackets may nest. ohm and the tree builder recurse once per level, so a condition nested a
 * hundred deep would overflow the stack; no condition a person writes comes near this.
 */
export const MAX_NESTING = 32;

function parse(text: string, at: SourceAt, rule: "Condition" | "Address", code: FaultCode): Parsed<Expr> {
	const tooDeep = nestingPast(text, MAX_NESTING);
	if (tooDeep !== undefined) {
		const range = rangeIn(at, tooDeep, tooDeep + 1);
		return {
			faults: [
				fault(code, at.file, range, at.path, `parentheses and brackets nest more than ${MAX_NESTING} deep here`, {
					hint: "name the parts in earlier nodes, or drop the extra parentheses",
				}),
			],
		};
	}
	if (text.length > MAX_EXPRESSION_CHARS) {
		// The grammar's work grows with the text: a bound on length is a bound on the check's time.
		const what = rule === "Condition" ? "condition" : "address";
		const message = `this ${what} is ${countWords(text.length)} characters long; one is read up to ${countWords(MAX_EXPRESSION_CHARS)}`;
		const range = rangeIn(at, MAX_EXPRESSION_CHARS, text.length);
		return { faults: [fault("expression-too-long", at.file, range, at.path, message, { hint: LONG_HINT })] };
	}
	try {
		const match = expressionGrammar().match(text, rule);
		if (!match.failed()) return { value: toTree(match, at), faults: [] };
		const mode = rule === "Condition" ? "condition" : "address";
		const refusal = diagnose(text, match.getRightmostFailurePosition(), match.getExpectedText(), mode);
		const range = rangeIn(at, refusal.start, refusal.end);
		const details = { hint: refusal.hint, expected: refusal.expected };
		return { faults: [fault(code, at.file, range, at.path, refusal.message, details)] };
	} catch (error) {
		// A backstop for nesting the count above does not see (a long run of `!`): the stack, not the text.
		if (!(error instanceof RangeError)) throw error;
		return {
			faults: [
				fault(code, at.file, rangeIn(at, 0, text.length), at.path, "this condition nests too deeply to read", {
					hint: "split it across nodes",
				}),
			],
		};
	}
}

/** The offset of the first `(` or `[` that opens a level past `limit`, outside quoted strings; none when within. */
function nestingPast(text: string, limit: number): number | undefined {
	let depth = 0;
	let quote: string | undefined;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quote) {
			if (c === "\\") i++;
			else if (c === quote) quote = undefined;
		} else if (c === '"' || c === "'") quote = c;
		else if ((c === "(" || c === "[") && ++depth > limit) return i;
		else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
	}
	return undefined;
}

/**
 * A condition of `loop:`, `when:` or `give-up:`. Refusals are `condition-syntax`; types are checked later
 * by the checker, which knows what each address reads.
 */
export function parseCondition(text: string, at: SourceAt): Parsed<Expr> {
	return parse(text, at, "Condition", "condition-syntax");
}

/**
 * A bare address, as `reads:`, `map-from:` and `agent-from:` take: a name followed by `.field`s. Refusals
 * are `invalid-address`, the code the checker also uses for an address that reads into text.
 */
export function parseAddress(text: string, at: SourceAt): Parsed<AddressExpr> {
	const plain = plainAddress(text, at);
	if (plain) return { value: plain, faults: [] };
	const parsed = parse(text, at, "Address", "invalid-address");
	if (parsed.value?.kind === "address") return { value: parsed.value, faults: [] };
	return { faults: parsed.faults };
}

/** Names joined by dots, nothing else: what nearly every `reads:` entry is. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The grammar's `reserved` words, which a name may not be (grammar/expression.ohm). */
const RESERVED = new Set(
	"as break const continue else false for function if import in let loop namespace null package return true var void while".split(
		" ",
	),
);

/**
 * The tree of an address that is only names and dots, built without the grammar: the tree ohm builds for
 * it (segments and ranges alike), at a hundredth of the cost. A 10,000-node flow reading one address a
 * node spent a second in ohm on them (issue 28). Anything else (spaces, a reserved word, a call, a
 * mistake) goes through the grammar, which also says what is wrong.
 */
function plainAddress(text: string, at: SourceAt): AddressExpr | undefined {
	if (text.length > MAX_EXPRESSION_CHARS || !PLAIN.test(text)) return undefined;
	const segments = [];
	let start = 0;
	for (const name of text.split(".")) {
		if (RESERVED.has(name)) return undefined;
		segments.push({ name, range: rangeIn(at, start, start + name.length) });
		start += name.length + 1;
	}
	return { kind: "address", segments, range: rangeIn(at, 0, text.length) };
}
