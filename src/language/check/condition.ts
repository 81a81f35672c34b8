/**
 * Type-checks a condition before anything spawns.
 * Input: a parsed {@link Expr} and the scope it is read in. Output: every fault at once, and its type.
 *   `review.output.status == "aproved"` with status `approved | rejected`
 *   → condition-enum-value at `"aproved"`, expected `approved`
 * No cascade: a part already refused is skipped by its parents, and operators whose result type is fixed
 * (`&&` is boolean, `+` a number) keep that type even when an operand is refused.
 */
import type { Fault } from "../../faults/index.ts";
import type { AddressExpr, Expr } from "../syntax/index.ts";
import { BOOLEAN, listOf, NUMBER, sameType, STRING, type Type } from "../types/index.ts";
import {
	checkEquality,
	checkIn,
	checkOrder,
	describe,
	freeAgainstLiteral,
	type Literal,
	type Operand,
	type Report,
	reporter,
} from "./condition-compare.ts";
import { type ConditionEnv, readFields } from "./condition-env.ts";

/** What `checkCondition` found. */
export interface ConditionCheck {
	faults: Fault[];
	/** The condition's type; undefined when its root was refused. */
	type?: Type;
}

/** The types of what a condition's own `all`/`exists` bind, by name (the checker's `Scope` is the rest). */
type Bound = ReadonlyMap<string, Type>;

interface Walk {
	env: ConditionEnv;
	report: Report;
	faults: Fault[];
}

const stringLike = (t: Type) => t.kind === "string" || t.kind === "enum" || t.kind === "freeString";

/** The fix every mismatched operand gets (issue 33: the fault said what was wrong, never what to write). */
const LIKE_WITH_LIKE =
	"Compare like with like: a number with a number, text with quoted text; read a typed field (`x.output.count`) or use `size(x)` for a list's length.";

function want(w: Walk, part: Operand | undefined, ok: (t: Type) => boolean, message: (t: Type) => string): void {
	if (part && !ok(part.type)) w.report.add("condition-type", part.range, message(part.type), { hint: LIKE_WITH_LIKE });
}

function address(w: Walk, expr: AddressExpr, scope: Bound, allowText: boolean): Operand | undefined {
	const bound = scope.get(expr.segments[0].name);
	const resolved = bound ? readFields(w.env, bound, expr.segments, 1) : w.env.resolve(expr.segments, expr);
	if ("fault" in resolved) {
		w.faults.push(bound ? resolved.fault : bareWord(resolved.fault, expr));
		return undefined;
	}
	if (resolved.type.kind === "text" && !allowText) {
		w.report.add("condition-type", expr.range, "A condition cannot read an agent's untyped text.", {
			hint: "Give the node an `output:` type and read a field of it.",
		});
		return undefined;
	}
	return { type: resolved.type, range: expr.range };
}

/**
 * `severity == high`: a bare word that names nothing is most often a literal missing its quotes, so the
 * fault suggests the quoted word (after any nearer name the scope offers).
 */
function bareWord(fault: Fault, expr: AddressExpr): Fault {
	if (fault.code !== "condition-unknown-address" || expr.segments.length !== 1) return fault;
	const quoted = `"${expr.segments[0].name}"`;
	return {
		...fault,
		message: `${fault.message} To compare with the word itself, quote it: \`${quoted}\`.`,
		expected: [...(fault.expected ?? []), quoted],
	};
}

function list(w: Walk, expr: Expr & { kind: "list" }, scope: Bound): Operand | undefined {
	if (expr.items.length === 0) {
		w.report.add("condition-type", expr.range, "An empty list `[]` has no element type.", {
			hint: "Test emptiness with `size(x) == 0`.",
		});
		return undefined;
	}
	const items = expr.items.map((item) => walk(w, item, scope));
	if (items.some((i) => i === undefined)) return undefined;
	const parts = items as Operand[];
	const first = parts[0].type;
	const elements: Literal[] = parts.flatMap((p) => p.literals ?? []);
	if (parts.every((p) => sameType(p.type, first))) return { type: listOf(first), range: expr.range, elements };
	if (parts.every((p) => stringLike(p.type))) return { type: listOf(STRING), range: expr.range, elements };
	const odd = parts.find((p) => !sameType(p.type, first)) as Operand;
	const message = `A list holds one type: this is ${describe(odd.type)} after ${describe(first)}.`;
	w.report.add("condition-type", odd.range, message, {
		hint: 'Write every item of the list as the same type: all quoted text (`["a", "b"]`) or all numbers.',
	});
	return undefined;
}

function binary(w: Walk, expr: Expr & { kind: "binary" }, scope: Bound): Operand | undefined {
	const a = walk(w, expr.left, scope);
	const b = walk(w, expr.right, scope);
	const range = expr.range;
	switch (expr.op) {
		case "&&":
		case "||":
			for (const side of [a, b]) {
				want(
					w,
					side,
					(t) => t.kind === "boolean",
					(t) => `\`${expr.op}\` takes booleans, not ${describe(t)}.`,
				);
			}
			return { type: BOOLEAN, range };
		case "==":
		case "!=":
			if (a && b) checkEquality(a, b, expr.opRange, w.report);
			return { type: BOOLEAN, range };
		case "<":
		case "<=":
		case ">":
		case ">=":
			if (a && b) checkOrder(a, b, expr.op, expr.opRange, w.report);
			return { type: BOOLEAN, range };
		case "in":
			if (a && b) checkIn(a, b, expr.opRange, w.report);
			return { type: BOOLEAN, range };
		default: {
			const plus = expr.op === "+" ? " (`+` adds numbers only; strings do not concatenate in a condition)" : "";
			const message = (t: Type) => `\`${expr.op}\` takes numbers, not ${describe(t)}${plus}.`;
			for (const side of [a, b]) want(w, side, (t) => t.kind === "number", message);
			// A sum of a string is not surely a number (the writer may have meant to join strings), so its
			// parents skip it rather than report a second, derived mistake.
			const numbers = a?.type.kind === "number" && b?.type.kind === "number";
			return numbers ? { type: NUMBER, range } : undefined;
		}
	}
}

function walk(w: Walk, expr: Expr, scope: Bound, allowText = false): Operand | undefined {
	switch (expr.kind) {
		case "number":
			return { type: NUMBER, range: expr.range };
		case "bool":
			return { type: BOOLEAN, range: expr.range };
		case "string":
			return { type: STRING, range: expr.range, literals: [{ value: expr.value, range: expr.range }] };
		case "list":
			return list(w, expr, scope);
		case "address":
			return address(w, expr, scope, allowText);
		case "binary":
			return binary(w, expr, scope);
		case "unary": {
			const operand = walk(w, expr.operand, scope);
			const type = expr.op === "!" ? BOOLEAN : NUMBER;
			const message = (t: Type) => `\`${expr.op}\` takes ${describe(type)}, not ${describe(t)}.`;
			want(w, operand, (t) => t.kind === type.kind, message);
			return expr.op === "!" || operand?.type.kind === "number" ? { type, range: expr.range } : undefined;
		}
		case "call": {
			if (expr.fn === "has") {
				if (expr.arg.kind !== "address" || expr.arg.segments.length < 2) {
					// What `has` takes is a matter of form (combo calls it syntax): `has(a)` is never a question.
					w.report.add("condition-syntax", expr.arg.range, "`has()` takes a field: write `has(a.b)`.");
				} else walk(w, expr.arg, scope, true);
				return { type: BOOLEAN, range: expr.range };
			}
			const arg = walk(w, expr.arg, scope);
			const message = (t: Type) => `\`size()\` takes a list or a string, not ${describe(t)}.`;
			want(w, arg, (t) => t.kind === "list" || stringLike(t), message);
			return { type: NUMBER, range: expr.range };
		}
		case "method": {
			const target = walk(w, expr.target, scope);
			const arg = walk(w, expr.arg, scope);
			const message = (t: Type) => `\`${expr.method}\` works on strings, not ${describe(t)}.`;
			want(w, target, stringLike, message);
			want(w, arg, stringLike, message);
			if (target && arg && !freeAgainstLiteral(target, arg, w.report)) freeAgainstLiteral(arg, target, w.report);
			return { type: BOOLEAN, range: expr.range };
		}
		case "macro": {
			const target = walk(w, expr.target, scope);
			if (!target) return { type: BOOLEAN, range: expr.range };
			if (target.type.kind !== "list") {
				const message = `\`${expr.method}\` works on lists, not ${describe(target.type)}.`;
				w.report.add("condition-type", target.range, message, {
					hint: `Use \`${expr.method}\` on a list field of a typed output (\`x.output.files.${expr.method}(f, ...)\`), or compare the value itself.`,
				});
				return { type: BOOLEAN, range: expr.range };
			}
			const inner = new Map(scope).set(expr.variable.name, target.type.of);
			const body = walk(w, expr.body, inner);
			const message = (t: Type) => `The body of \`${expr.method}\` is true or false, not ${describe(t)}.`;
			want(w, body, (t) => t.kind === "boolean", message);
			return { type: BOOLEAN, range: expr.range };
		}
	}
}

/**
 * Checks `expr` as a `loop:`, `when:` or `give-up:` condition: every part typed per the language's rules
 * and the result a boolean. Faults come back all at once; `type` is the result's type when known.
 */
export function checkCondition(expr: Expr, env: ConditionEnv): ConditionCheck {
	const faults: Fault[] = [];
	const w: Walk = { env, faults, report: reporter(env.file, env.path, faults) };
	const root = walk(w, expr, new Map());
	if (root && root.type.kind !== "boolean") {
		w.report.add("condition-type", root.range, `A condition is true or false; this is ${describe(root.type)}.`, {
			hint: 'Compare it (`x.output.count > 0`, `x.output.status == "done"`) or read a boolean field.',
		});
	}
	faults.sort((x, y) => x.offset - y.offset || x.endOffset - y.endOffset);
	return root ? { faults, type: root.type } : { faults };
}
