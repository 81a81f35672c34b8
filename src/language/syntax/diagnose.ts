/**
 * A failed match → one refusal with its own message. Ohm says where the match stopped (its public
 * `getRightmostFailurePosition` and `getExpectedText`, style rule 7); this file looks at the token there
 * and names the construct the language refuses (`?:`, `{`, a single `=`, an unknown function, a dashed
 * name...), so the user reads "branching is a choice's" rather than a list of expected tokens.
 */
import { didYouMean, nearest } from "../../faults/index.ts";
import { FUNCTIONS, METHODS, RESERVED_WORDS } from "./expr.ts";

/** One refusal, relative to the parsed text. */
export interface Refusal {
	start: number;
	end: number;
	message: string;
	hint?: string;
	expected?: string[];
}

const isIdentStart = (c: string | undefined) => c !== undefined && /[A-Za-z_]/.test(c);
const isIdentPart = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);
const RESERVED: ReadonlySet<string> = new Set(RESERVED_WORDS);

const RESERVED_HINTS: Record<string, string> = {
	null: "There is no null: test an optional field with `has(a.b)`.",
	if: "Branching is a choice's: write a `choice` node with `when:` cases.",
	else: "Branching is a choice's: write a `choice` node with `when:` cases.",
};

function skipBack(text: string, i: number): number {
	let j = i;
	while (j > 0 && /\s/.test(text[j - 1])) j--;
	return j;
}

function skipForward(text: string, i: number): number {
	let j = i;
	while (j < text.length && /\s/.test(text[j])) j++;
	return j;
}

/** The run of name characters (and dashes between them) around `p`. */
function wordAround(text: string, p: number): { start: number; end: number } {
	let start = p;
	let end = p;
	const inWord = (i: number) =>
		isIdentPart(text[i]) || (text[i] === "-" && isIdentPart(text[i - 1]) && isIdentStart(text[i + 1]));
	while (start > 0 && inWord(start - 1)) start--;
	while (end < text.length && inWord(end)) end++;
	return { start, end };
}

/** The end of the operator or other token starting at `p`, for widening a range to the whole token. */
function tokenEnd(text: string, p: number): number {
	if (p >= text.length) return p;
	if (isIdentPart(text[p])) return wordAround(text, p).end;
	const two = text.slice(p, p + 2);
	if (["==", "!=", "<=", ">=", "&&", "||"].includes(two)) return p + 2;
	// Never split a surrogate pair: the range must end on a character boundary.
	const code = text.charCodeAt(p);
	return code >= 0xd800 && code <= 0xdbff && p + 1 < text.length ? p + 2 : p + 1;
}

function stringProblem(text: string, p: number): Refusal {
	const quote = text[p];
	for (let i = p + 1; i < text.length; i++) {
		const c = text[i];
		if (c === quote) break;
		if (c === "\n" || c === "\r") break;
		if (c === "\\") {
			if (!"\\\"'nrt".includes(text[i + 1] ?? "")) {
				return {
					start: i,
					end: Math.min(i + 2, text.length),
					message: `\`${text.slice(i, i + 2)}\` is not an escape: the escapes are \\\\ \\" \\' \\n \\r \\t.`,
				};
			}
			i++;
		}
	}
	let end = p + 1;
	while (end < text.length && text[end] !== "\n" && text[end] !== "\r") end++;
	return { start: p, end, message: "This string is not closed: a string ends with its quote, on the same line." };
}

function wordProblem(text: string, p: number, mode: "condition" | "address"): Refusal | undefined {
	const { start, end } = wordAround(text, p);
	const word = text.slice(start, end);
	if (word.includes("-")) {
		const fixed = word.replaceAll("-", "_");
		const subtract = mode === "condition" ? ` (or \`${word.replaceAll("-", " - ")}\` to subtract)` : "";
		const message = `\`${word}\` is not a name: a dash reads as subtraction. Write \`${fixed}\`${subtract}.`;
		return { start, end, message, expected: [fixed] };
	}
	if (/^[0-9]/.test(word)) {
		if (/^[0-9]+$/.test(word)) return undefined;
		return { start, end, message: `\`${word}\` is not a number: a number may not run into letters.` };
	}
	const literalOrOperator = word === "true" || word === "false" || word === "in";
	if (RESERVED.has(word) && (!literalOrOperator || text[skipBack(text, start) - 1] === ".")) {
		const message = `\`${word}\` is a reserved word and cannot be a name.`;
		return { start, end, message, hint: Object.hasOwn(RESERVED_HINTS, word) ? RESERVED_HINTS[word] : undefined };
	}
	if (mode === "address") return undefined;
	const after = skipForward(text, end);
	if (text[after] !== "(") return undefined;
	const before = skipBack(text, start);
	if (text[before - 1] === ".") {
		if (word === "size") {
			const message = "`size` is a function, not a method.";
			return { start, end, message, hint: "Write `size(x)`.", expected: ["size"] };
		}
		const near = nearest(word, METHODS);
		const message = `\`${word}\` is not a method: the methods are ${METHODS.join(", ")}.${didYouMean(near)}`;
		return { start, end, message, expected: near ? [near] : undefined };
	}
	const near = nearest(word, FUNCTIONS);
	const message = `\`${word}\` is not a function: the functions are size and has.${didYouMean(near)}`;
	const asMethod = (METHODS as readonly string[]).includes(word);
	const hint = asMethod ? `\`${word}\` is a method: write \`x.${word}(...)\`.` : undefined;
	return { start, end, message, hint, expected: near ? [near] : undefined };
}

function punctuationProblem(text: string, p: number, mode: "condition" | "address"): Refusal | undefined {
	const c = text[p];
	const at = (message: string, hint?: string): Refusal => ({ start: p, end: tokenEnd(text, p), message, hint });
	const branching = "`? :` is not in the language: branching is a choice's.";
	if (c === "?") return at(branching, "Write a `choice` node with `when:` cases.");
	if (c === ":" && text.lastIndexOf("?", p) >= 0) return at(branching);
	if (c === "{" || c === "}") return at("There are no map literals: compare fields of a typed output instead.");
	const single: Record<string, string> = { "=": "equality is `==`", "&": "and is `&&`", "|": "or is `||`" };
	if (Object.hasOwn(single, c) && text[p + 1] !== c) {
		return { start: p, end: p + 1, message: `A single \`${c}\` is not an operator: ${single[c]}.` };
	}
	if (c === "[" && /[A-Za-z0-9_)\]"']/.test(text[skipBack(text, p) - 1] ?? "")) {
		return at("Indexing with `[...]` is not in the language.", "Read a field, or use `in`, `all` or `exists`.");
	}
	if (c === '"' || c === "'") return stringProblem(text, p);
	if (c === "(") {
		const before = skipBack(text, p);
		if (isIdentPart(text[before - 1])) return wordProblem(text, before - 1, mode);
	}
	return undefined;
}

/**
 * Why `text` does not match, as one refusal at the failure point widened to the rest of its token.
 *
 * @param p ohm's rightmost failure position
 * @param expectedText ohm's list of what would have matched there, for the generic message
 */
export function diagnose(text: string, p: number, expectedText: string, mode: "condition" | "address"): Refusal {
	const what = mode === "condition" ? "condition" : "address";
	const specific = isIdentPart(text[p]) ? wordProblem(text, p, mode) : punctuationProblem(text, p, mode);
	if (specific) return specific;
	if (skipForward(text, p) >= text.length) {
		const empty = text.trim() === "";
		return {
			start: p,
			end: p,
			message: empty ? `The ${what} is empty.` : `The ${what} ends too early: expected ${expectedText}.`,
		};
	}
	const end = tokenEnd(text, p);
	const token = text.slice(p, end);
	const hint = mode === "address" ? "An address is a name followed by `.field`s, like `plan.output.tasks`." : undefined;
	return { start: p, end, message: `\`${token}\` is not expected here: expected ${expectedText}.`, hint };
}
