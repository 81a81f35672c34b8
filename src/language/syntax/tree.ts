/**
 * Stage two of a condition: the concrete syntax tree of a successful match → the {@link Expr} tree.
 * Input: an ohm match of `grammar/expression.ohm`. Output: an `Expr` whose every node has an absolute range.
 *   `plan.ok && size(plan.output.tasks) > 0`
 *   → binary `&&` (address plan.ok, binary `>` (call size (address …), number 0))
 * Actions are keyed by case name, never by child position in a wider rule, so a grammar change that moves
 * a child breaks loudly (ohm checks every action's arity when the operation is added).
 */
import type { MatchResult, Node, Semantics } from "ohm-js";
import type { AddressExpr, BinaryOp, Expr, Segment } from "./expr.ts";
import { expressionGrammar } from "./grammars.ts";
import { rangeIn, type SourceAt } from "./source-at.ts";

let semantics: Semantics | undefined;

const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "'": "'", n: "\n", r: "\r", t: "\t" };

/** The operation's argument, typed once here so the actions below stay free of `any`. */
function atOf(node: Node): SourceAt {
	return (node.args as { at: SourceAt }).at;
}

function tree(node: Node, at: SourceAt): Expr {
	return node.tree(at) as Expr;
}

function span(node: Node, at: SourceAt) {
	return rangeIn(at, node.source.startIdx, node.source.endIdx);
}

function segment(node: Node, at: SourceAt): Segment {
	return { name: node.sourceString, range: span(node, at) };
}

function binary(self: Node, left: Node, op: Node, right: Node): Expr {
	const at = atOf(self);
	return {
		kind: "binary",
		op: op.sourceString as BinaryOp,
		left: tree(left, at),
		right: tree(right, at),
		opRange: span(op, at),
		range: span(self, at),
	};
}

/** Decodes the escapes the grammar admits; the grammar has already refused every other backslash. */
function unquote(source: string): string {
	const body = source.slice(1, -1);
	return body.replace(/\\(.)/g, (_, c: string) => (Object.hasOwn(ESCAPES, c) ? ESCAPES[c] : c));
}

function build(): Semantics {
	const s = expressionGrammar().createSemantics();
	s.addOperation<Expr>("tree(at)", {
		Or_or(l, op, r) {
			return binary(this, l, op, r);
		},
		And_and(l, op, r) {
			return binary(this, l, op, r);
		},
		Rel_rel(l, op, r) {
			return binary(this, l, op, r);
		},
		Sum_sum(l, op, r) {
			return binary(this, l, op, r);
		},
		Product_product(l, op, r) {
			return binary(this, l, op, r);
		},
		Unary_not(op, operand) {
			const at = atOf(this);
			return { kind: "unary", op: "!", operand: tree(operand, at), opRange: span(op, at), range: span(this, at) };
		},
		Unary_negate(op, operand) {
			const at = atOf(this);
			return { kind: "unary", op: "-", operand: tree(operand, at), opRange: span(op, at), range: span(this, at) };
		},
		Postfix_macro(target, _dot, name, _open, variable, _comma, body, _close) {
			const at = atOf(this);
			return {
				kind: "macro",
				method: name.sourceString as "all" | "exists",
				target: tree(target, at),
				variable: segment(variable, at),
				body: tree(body, at),
				nameRange: span(name, at),
				range: span(this, at),
			};
		},
		Postfix_method(target, _dot, name, _open, arg, _close) {
			const at = atOf(this);
			return {
				kind: "method",
				method: name.sourceString as "contains" | "startsWith" | "endsWith",
				target: tree(target, at),
				arg: tree(arg, at),
				nameRange: span(name, at),
				range: span(this, at),
			};
		},
		Primary_paren(_open, inner, _close) {
			return tree(inner, atOf(this));
		},
		Primary_list(_open, items, _close) {
			const at = atOf(this);
			return { kind: "list", items: items.asIteration().children.map((c) => tree(c, at)), range: span(this, at) };
		},
		Primary_size(name, _open, arg, _close) {
			const at = atOf(this);
			return { kind: "call", fn: "size", arg: tree(arg, at), nameRange: span(name, at), range: span(this, at) };
		},
		Primary_has(name, _open, arg, _close) {
			const at = atOf(this);
			return { kind: "call", fn: "has", arg: tree(arg, at), nameRange: span(name, at), range: span(this, at) };
		},
		number(_digits, _fraction, _exponent) {
			return { kind: "number", value: Number(this.sourceString), range: span(this, atOf(this)) };
		},
		string_double(_open, _chars, _close) {
			return { kind: "string", value: unquote(this.sourceString), range: span(this, atOf(this)) };
		},
		string_single(_open, _chars, _close) {
			return { kind: "string", value: unquote(this.sourceString), range: span(this, atOf(this)) };
		},
		boolean(_word) {
			return { kind: "bool", value: this.sourceString === "true", range: span(this, atOf(this)) };
		},
		address(first, selectors) {
			const at = atOf(this);
			const segments = [segment(first, at), ...selectors.children.map((sel) => segment(sel.child(1), at))];
			const address: AddressExpr = { kind: "address", segments, range: span(this, at) };
			return address;
		},
	});
	return s;
}

/** The tree of a successful match of `Condition` or `Address`. */
export function toTree(match: MatchResult, at: SourceAt): Expr {
	semantics ??= build();
	return semantics(match).tree(at) as Expr;
}
