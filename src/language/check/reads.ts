/**
 * Reading addresses and conditions against a scope: `reads:` and the `-from` keys accept any type (a turn
 * can be handed text), conditions go through the condition checker with the condition codes.
 */
import { type Fault, fault } from "../../faults/index.ts";
import type { Address, Condition } from "../ast.ts";
import type { Type } from "../types/index.ts";
import { checkCondition } from "./condition.ts";
import type { ConditionEnv } from "./condition-env.ts";
import { CONDITION_CODES, READ_CODES, type Scope } from "./scope.ts";
import { keep, type Walk } from "./walk.ts";

/** The type an address reads here, reporting when it reads nothing; undefined when refused. */
export function readAddress(w: Walk, address: Address, scope: Scope, path: string): Type | undefined {
	const r = scope.resolve(address.expr.segments, path, READ_CODES);
	if (!r) return undefined;
	if ("fault" in r) {
		keep(w, [r.fault]);
		return undefined;
	}
	w.resolutions.set(address.expr, r);
	return r.type;
}

/** Type-checks a condition here; its result must be true or false. Each address it reads is recorded. */
export function readCondition(w: Walk, condition: Condition, scope: Scope, path: string): void {
	// A read of a refused node was already reported where the node is: the condition checker gets a
	// fault object we drop afterwards, so the parts around it are skipped like any refused part.
	const refused: Fault = fault("unknown-address", w.flow.file, condition.range, path, "refused elsewhere");
	const env: ConditionEnv = {
		file: w.flow.file,
		path,
		resolve(segments, expr) {
			const r = scope.resolve(segments, path, CONDITION_CODES);
			if (r && "binding" in r && expr) w.resolutions.set(expr, r);
			return r ?? { fault: refused };
		},
	};
	keep(
		w,
		checkCondition(condition.expr, env).faults.filter((f) => f !== refused),
	);
}
