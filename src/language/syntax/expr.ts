/**
 * The condition tree. Every node carries its absolute range in the flow file, so the type checker and the
 * run can point at the exact operand that is wrong ("`+` takes numbers" under the `+`, an enum literal
 * under its quotes) without re-parsing.
 */
import type { Range } from "../../text/index.ts";

/** One name of an address (`plan`, `output`, `tasks`), with its own range for unknown-field faults. */
export interface Segment {
	name: string;
	range: Range;
}

/** `plan.output.tasks`: a name followed by fields; the first name is a node id, an address word or a bound variable. */
export interface AddressExpr {
	kind: "address";
	segments: Segment[];
	range: Range;
}

/** A number as written: integers and decimals are one kind, as in JSON. */
export interface NumberExpr {
	kind: "number";
	value: number;
	range: Range;
}

/** A string literal, escapes already decoded. */
export interface StringExpr {
	kind: "string";
	value: string;
	range: Range;
}

/** `true` or `false`. */
export interface BoolExpr {
	kind: "bool";
	value: boolean;
	range: Range;
}

/** `[a, b]`: kept as written so the checker can hold each element literal to an enum. */
export interface ListExpr {
	kind: "list";
	items: Expr[];
	range: Range;
}

/** `!x` and `-x`; `opRange` lets a fault point at the operator rather than the whole operand. */
export interface UnaryExpr {
	kind: "unary";
	op: "!" | "-";
	operand: Expr;
	opRange: Range;
	range: Range;
}

/** Operators of the binary levels, loosest first as CEL orders them. */
export type BinaryOp = "||" | "&&" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "+" | "-" | "*" | "/" | "%";

/** `a op b`, left-associative at every level. */
export interface BinaryExpr {
	kind: "binary";
	op: BinaryOp;
	left: Expr;
	right: Expr;
	opRange: Range;
	range: Range;
}

/** `size(x)` and `has(a.b)`: the only two functions there are. */
export interface CallExpr {
	kind: "call";
	fn: "size" | "has";
	arg: Expr;
	/** The function name, for faults about the call itself. */
	nameRange: Range;
	range: Range;
}

/** `s.contains(t)`, `s.startsWith(t)`, `s.endsWith(t)`: string tests, our extension to combo's subset. */
export interface MethodExpr {
	kind: "method";
	method: "contains" | "startsWith" | "endsWith";
	target: Expr;
	arg: Expr;
	nameRange: Range;
	range: Range;
}

/** `list.all(v, pred)` and `list.exists(v, pred)`: CEL's macros, binding `v` to each element in `body`. */
export interface MacroExpr {
	kind: "macro";
	method: "all" | "exists";
	target: Expr;
	variable: Segment;
	body: Expr;
	nameRange: Range;
	range: Range;
}

/** Any condition, or part of one. */
export type Expr =
	| AddressExpr
	| NumberExpr
	| StringExpr
	| BoolExpr
	| ListExpr
	| UnaryExpr
	| BinaryExpr
	| CallExpr
	| MethodExpr
	| MacroExpr;

/** The functions a condition may call; anything else is refused with a did-you-mean among these. */
export const FUNCTIONS = ["size", "has"] as const;

/** The methods a condition may call; anything else is refused with a did-you-mean among these. */
export const METHODS = ["contains", "startsWith", "endsWith", "all", "exists"] as const;

/**
 * CEL's reserved words. They may not be names in a condition (nor node ids, which conditions read); the
 * grammar lists the same words in its `reserved` rule and a test holds the two together.
 */
export const RESERVED_WORDS = [
	"as",
	"break",
	"const",
	"continue",
	"else",
	"false",
	"for",
	"function",
	"if",
	"import",
	"in",
	"let",
	"loop",
	"namespace",
	"null",
	"package",
	"return",
	"true",
	"var",
	"void",
	"while",
] as const;
