/**
 * When two sides of `==`, `!=`, `in`, `<`... may meet. Strings and enums compare; an enum holds a literal to
 * its values (a typo such as `"aproved"` would otherwise loop to the cap); a free string (an `ask-from`
 * answer, in the person's own words) never meets a literal; lists and objects never compare.
 */
import { type Fault, type FaultCode, type FaultDetails, fault, nearest } from "../../faults/index.ts";
import { cover, type Range } from "../../text/index.ts";
import { typeToString, type Type } from "../types/index.ts";

/** A string literal as written, for enum and free-string rules. */
export interface Literal {
	value: string;
	range: Range;
}

/** A checked part of a condition: its type, where it is, and the literals it stands for. */
export interface Operand {
	type: Type;
	range: Range;
	/** This operand is one of these literal strings (a string literal). */
	literals?: Literal[];
	/** This operand is a list literal whose string elements are these. */
	elements?: Literal[];
}

/** Where faults go: one list per condition, already knowing file and path. */
export interface Report {
	add(code: FaultCode, range: Range, message: string, details?: FaultDetails): void;
}

/** A reporter for `file` and `path` that appends to `faults`. */
export function reporter(file: string, path: string, faults: Fault[]): Report {
	return { add: (code, range, message, details) => faults.push(fault(code, file, range, path, message, details)) };
}

const stringLike = (t: Type) => t.kind === "string" || t.kind === "enum" || t.kind === "freeString";

/** A phrase for a type in messages: "a number", "`scout | reviewer`". */
export function describe(t: Type): string {
	if (t.kind === "enum") return `the enum \`${typeToString(t)}\``;
	if (t.kind === "list") return `a list \`${typeToString(t)}\``;
	if (t.kind === "object") return "an object";
	if (t.kind === "freeString") return "a free-text answer";
	return `a ${t.kind}`;
}

/**
 * True when a free string meets a literal, which it reports at each literal. Exported for the string
 * methods, where `answer.contains("yes")` is the same bet on the person's wording.
 */
export function freeAgainstLiteral(free: Operand, other: Operand, report: Report): boolean {
	if (free.type.kind !== "freeString" || !other.literals?.length) return false;
	const message = "An `ask-from` answer is free text in the person's words: no literal reliably meets it.";
	const hint = "Read `answered` or `custom`, or have an agent turn the answer into an enum.";
	// One bet on the person's wording, however many literals it lists (`in ["Yes", "No"]`): one fault over them.
	const lits = other.literals;
	report.add("condition-free-string", cover(lits[0].range, lits[lits.length - 1].range), message, { hint });
	return true;
}

function enumAgainstLiterals(e: Operand, other: Operand, report: Report, why = "so this never holds"): void {
	if (e.type.kind !== "enum" || !other.literals) return;
	const values = e.type.values;
	for (const lit of other.literals) {
		if (values.includes(lit.value)) continue;
		const near = nearest(lit.value, values);
		const meant = near ? ` Did you mean "${near}"?` : "";
		const message = `"${lit.value}" is not a value of ${describe(e.type)}, ${why}.${meant}`;
		report.add("condition-enum-value", lit.range, message, { expected: near ? [near] : [...values] });
	}
}

/** What to write instead when two sides of a comparison have different types. */
function likeWithLike(a: Type, b: Type): string {
	const kinds = new Set([a.kind, b.kind]);
	if (kinds.has("number") && (kinds.has("string") || kinds.has("freeString")))
		return "Write the number without quotes (`== 3`), or compare a text field with quoted text.";
	if (kinds.has("boolean")) return "Write `true` or `false` without quotes, or read a boolean field.";
	return "Read fields of the same type on both sides, or compare with a literal of that type.";
}

/** `==` and `!=` (and `in`, element against element): reports why the sides cannot meet, if they cannot. */
export function checkEquality(a: Operand, b: Operand, opRange: Range, report: Report): void {
	if (freeAgainstLiteral(a, b, report) || freeAgainstLiteral(b, a, report)) return;
	const ta = a.type;
	const tb = b.type;
	if (ta.kind === "list" || ta.kind === "object" || tb.kind === "list" || tb.kind === "object") {
		const side = ta.kind === "list" || ta.kind === "object" ? a : b;
		report.add("condition-type", side.range, `${describe(side.type)} does not compare.`, {
			hint: "Read a field, or use `size()`, `all` or `exists`.",
		});
		return;
	}
	if (stringLike(ta) && stringLike(tb)) {
		if (ta.kind === "enum" && tb.kind === "enum" && !ta.values.some((v) => tb.values.includes(v))) {
			const message = `${describe(ta)} and ${describe(tb)} share no value, so this never holds.`;
			report.add("condition-type", opRange, message, {
				hint: `Compare with one of the values, quoted: ${ta.values.map((v) => `"${v}"`).join(", ")}.`,
			});
			return;
		}
		enumAgainstLiterals(a, b, report);
		enumAgainstLiterals(b, a, report);
		return;
	}
	if (ta.kind !== tb.kind) {
		const message = `This compares ${describe(ta)} with ${describe(tb)}; compare like with like.`;
		report.add("condition-type", opRange, message, { hint: likeWithLike(ta, tb) });
	}
}

/** `<`, `<=`, `>`, `>=`: two numbers or two strings (enums and free strings order as strings). */
export function checkOrder(a: Operand, b: Operand, op: string, opRange: Range, report: Report): void {
	if (freeAgainstLiteral(a, b, report) || freeAgainstLiteral(b, a, report)) return;
	if (a.type.kind === "number" && b.type.kind === "number") return;
	if (stringLike(a.type) && stringLike(b.type)) {
		// Ordering an enum against a literal outside it is the same slip as `==` with one: combo refuses both.
		const why = "so the order compares against a value the field never takes";
		enumAgainstLiterals(a, b, report, why);
		enumAgainstLiterals(b, a, report, why);
		return;
	}
	const message = `\`${op}\` orders two numbers or two strings, not ${describe(a.type)} and ${describe(b.type)}.`;
	report.add("condition-type", opRange, message);
}

/** `x in list`: a list on the right whose element type meets `x`. */
export function checkIn(a: Operand, b: Operand, opRange: Range, report: Report): void {
	if (b.type.kind !== "list") {
		report.add("condition-type", b.range, `\`in\` needs a list on its right, not ${describe(b.type)}.`);
		return;
	}
	checkEquality(a, { type: b.type.of, range: b.range, literals: b.elements }, opRange, report);
}
