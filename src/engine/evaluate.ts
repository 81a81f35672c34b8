/**
 * Evaluates a checked condition against the values of a run.
 * Input: an {@link Expr} and a lookup of addresses. Output: a value, or an error with its reason; never a
 * throw and never a silent `false`. A failed node, an absent optional field, `previous` on the first
 * iteration, a division by zero: each is an error, and the node that reads the condition fails `condition`.
 *   `audit.ok && audit.output.approved` with audit failed → false (the deciding side wins, as in CEL)
 */
import type { Range } from "../text/index.ts";
import type { AddressExpr, Expr } from "../language/syntax/index.ts";
import type { Value } from "../language/types/index.ts";

/** An evaluation's result: total, so every caller handles the error case. */
export type Outcome = { ok: true; value: Value } | { ok: false; reason: string; range?: Range };

/**
 * The value at an address (`["plan", "output", "tasks"]`), or why there is none: the run knows which nodes
 * failed and which optional fields were left out. `address` is the parsed address the names come from (all
 * of them, or its parent for `has`), so the lookup can take what the checker resolved it to.
 */
export type Lookup = (segments: readonly string[], address: AddressExpr) => Outcome;

/** What a condition's own `all`/`exists` bind, by name: not a scope (that is the checker's `Scope`). */
type Bound = ReadonlyMap<string, Value>;
type Err = { ok: false; reason: string; range?: Range };

const fail = (reason: string, range?: Range): Err => ({ ok: false, reason, range });
const ok = (value: Value): Outcome => ({ ok: true, value });
const isRecord = (v: Value): v is { [field: string]: Value } =>
	v !== null && typeof v === "object" && !Array.isArray(v);

function equal(a: Value, b: Value): boolean {
	if (Array.isArray(a) || Array.isArray(b)) {
		return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
	}
	if (isRecord(a) || isRecord(b)) {
		if (!isRecord(a) || !isRecord(b)) return false;
		const keys = Object.keys(a);
		return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
	}
	return a === b;
}

/** Code-point order, as CEL orders strings (UTF-16 order differs above U+FFFF). */
function compareStrings(a: string, b: string): number {
	const x = [...a];
	const y = [...b];
	for (let i = 0; i < Math.min(x.length, y.length); i++) {
		const d = (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
		if (d !== 0) return d;
	}
	return x.length - y.length;
}

function fields(base: Outcome, segments: readonly string[], from: number, range: Range): Outcome {
	let current = base;
	for (let i = from; i < segments.length && current.ok; i++) {
		const v: Value = current.value;
		const name = segments[i];
		const shown = `\`${segments.slice(0, i + 1).join(".")}\``;
		if (!isRecord(v)) return fail(`${shown} reads into a value that has no fields`, range);
		current = Object.hasOwn(v, name) ? ok(v[name]) : fail(`${shown} is absent`, range);
	}
	return current;
}

function read(segments: readonly string[], address: AddressExpr, scope: Bound, lookup: Lookup): Outcome {
	const range = address.range;
	const bound = scope.get(segments[0]);
	if (bound !== undefined) return fields(ok(bound), segments, 1, range);
	const found = lookup(segments, address);
	if (!found.ok) return { ...found, range: found.range ?? range };
	// A lookup is typed, but run values come from models and files: an absent value is an error here too.
	if (found.value === null || found.value === undefined) return fail(`\`${segments.join(".")}\` has no value`, range);
	return found;
}

/** CEL's rule for `&&`, `||`, `all` and `exists`: a deciding value wins over an error, in any order. */
function decide(parts: readonly Outcome[], decider: boolean, range: Range): Outcome {
	let error: Err | undefined;
	for (const p of parts) {
		if (!p.ok) error ??= p;
		else if (typeof p.value !== "boolean") error ??= fail("expected true or false", range);
		else if (p.value === decider) return ok(decider);
	}
	return error ?? ok(!decider);
}

function arithmetic(op: string, a: number, b: number, range: Range): Outcome {
	if ((op === "/" || op === "%") && b === 0) return fail(op === "/" ? "division by zero" : "`%` by zero", range);
	const value = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : op === "/" ? a / b : a % b;
	return Number.isFinite(value) ? ok(value) : fail("the result is too large to be a number", range);
}

function binary(expr: Expr & { kind: "binary" }, scope: Bound, lookup: Lookup): Outcome {
	const range = expr.range;
	if (expr.op === "&&" || expr.op === "||") {
		const decider = expr.op === "||";
		const left = run(expr.left, scope, lookup);
		if (left.ok && left.value === decider) return left;
		return decide([left, run(expr.right, scope, lookup)], decider, range);
	}
	const left = run(expr.left, scope, lookup);
	if (!left.ok) return left;
	const right = run(expr.right, scope, lookup);
	if (!right.ok) return right;
	const a = left.value;
	const b = right.value;
	switch (expr.op) {
		case "==":
			return ok(equal(a, b));
		case "!=":
			return ok(!equal(a, b));
		case "in":
			return Array.isArray(b) ? ok(b.some((x) => equal(a, x))) : fail("`in` needs a list", range);
		case "<":
		case "<=":
		case ">":
		case ">=": {
			let d: number;
			if (typeof a === "number" && typeof b === "number") d = a - b;
			else if (typeof a === "string" && typeof b === "string") d = compareStrings(a, b);
			else return fail(`\`${expr.op}\` needs two numbers or two strings`, range);
			return ok(expr.op === "<" ? d < 0 : expr.op === "<=" ? d <= 0 : expr.op === ">" ? d > 0 : d >= 0);
		}
		default:
			if (typeof a !== "number" || typeof b !== "number") return fail(`\`${expr.op}\` needs numbers`, range);
			return arithmetic(expr.op, a, b, range);
	}
}

function run(expr: Expr, scope: Bound, lookup: Lookup): Outcome {
	switch (expr.kind) {
		case "number":
		case "string":
		case "bool":
			return ok(expr.value);
		case "list": {
			const items: Value[] = [];
			for (const item of expr.items) {
				const v = run(item, scope, lookup);
				if (!v.ok) return v;
				items.push(v.value);
			}
			return ok(items);
		}
		case "address":
			return read(
				expr.segments.map((s) => s.name),
				expr,
				scope,
				lookup,
			);
		case "unary": {
			const v = run(expr.operand, scope, lookup);
			if (!v.ok) return v;
			if (expr.op === "!") {
				return typeof v.value === "boolean" ? ok(!v.value) : fail("`!` needs true or false", expr.range);
			}
			return typeof v.value === "number" ? ok(-v.value) : fail("`-` needs a number", expr.range);
		}
		case "binary":
			return binary(expr, scope, lookup);
		case "call":
			return call(expr, scope, lookup);
		case "method": {
			const target = run(expr.target, scope, lookup);
			if (!target.ok) return target;
			const arg = run(expr.arg, scope, lookup);
			if (!arg.ok) return arg;
			const s = target.value;
			const t = arg.value;
			if (typeof s !== "string" || typeof t !== "string") {
				return fail(`\`${expr.method}\` needs strings`, expr.range);
			}
			if (expr.method === "contains") return ok(s.includes(t));
			return ok(expr.method === "startsWith" ? s.startsWith(t) : s.endsWith(t));
		}
		case "macro": {
			const target = run(expr.target, scope, lookup);
			if (!target.ok) return target;
			const items = target.value;
			if (!Array.isArray(items)) return fail(`\`${expr.method}\` needs a list`, expr.range);
			const decider = expr.method === "exists";
			const parts = items.map((item) => run(expr.body, new Map(scope).set(expr.variable.name, item), lookup));
			return decide(parts, decider, expr.range);
		}
	}
}

function call(expr: Expr & { kind: "call" }, scope: Bound, lookup: Lookup): Outcome {
	if (expr.fn === "has") {
		if (expr.arg.kind !== "address" || expr.arg.segments.length < 2) {
			return fail("`has` needs a field selection", expr.range);
		}
		const names = expr.arg.segments.map((s) => s.name);
		const parent = read(names.slice(0, -1), expr.arg, scope, lookup);
		if (!parent.ok) return parent;
		const v = parent.value;
		if (!isRecord(v)) return fail("`has` reads a field of an object", expr.range);
		return ok(Object.hasOwn(v, names[names.length - 1]));
	}
	const v = run(expr.arg, scope, lookup);
	if (!v.ok) return v;
	if (typeof v.value === "string") return ok([...v.value].length);
	return Array.isArray(v.value) ? ok(v.value.length) : fail("`size` needs a list or a string", expr.range);
}

/**
 * The value of `expr`. Deterministic and total: the same lookup gives the same outcome, and every failure
 * (a failed node read, an absent field, division or `%` by zero, a value of the wrong shape) is an error
 * outcome with a reason. Numbers are JS numbers (integers and decimals alike; `/` divides exactly, `%` is
 * JS's remainder); `size` of a string counts code points.
 */
export function evaluate(expr: Expr, lookup: Lookup): Outcome {
	return run(expr, new Map(), lookup);
}
