/**
 * The syntax layer's only door: the condition and address parsers, durations, and the helper that says
 * whether a YAML scalar's text maps back to exact columns.
 */
export {
	durationFlagError,
	durationLength,
	formatDuration,
	MAX_DURATION_MS,
	parseDuration,
	readDuration,
} from "./duration.ts";
export {
	type AddressExpr,
	type BinaryExpr,
	type BinaryOp,
	type BoolExpr,
	type CallExpr,
	type Expr,
	FUNCTIONS,
	type ListExpr,
	type MacroExpr,
	METHODS,
	type MethodExpr,
	type NumberExpr,
	RESERVED_WORDS,
	type Segment,
	type StringExpr,
	type UnaryExpr,
} from "./expr.ts";
export { type Parsed, parseAddress, parseCondition } from "./expression.ts";
export { scalarBase } from "./scalar-base.ts";
export { rangeIn, type SourceAt } from "./source-at.ts";
