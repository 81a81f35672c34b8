/**
 * What each kind of node says in the plan: its kind module's `plan` fills the row, so each kind's line
 * reads in its module (`kinds/<kind>/language.ts`), found through the table the flow was checked with. The
 * model and timeout are the ones that would apply, nearest first, with where they come from
 * (`kinds/labels.ts`).
 */
import type { FlowNode } from "../ast.ts";
import type { CheckedFlow } from "../check/index.ts";
import type { PlanFlowRow, PlanNodeRow, PlanOptions } from "./plan.ts";

/** What describing a node needs besides the node. */
export interface NodeContext {
	flow: CheckedFlow;
	options: PlanOptions;
	display: (path: string) => string;
}

/** Fills a row with what its kind runs, reads, outputs and is bounded by (the kind module's `plan`). */
export function describeNode(node: FlowNode, row: PlanNodeRow, c: NodeContext): void {
	c.flow.kinds.of(node).plan(node, row, c);
}

/** A flow's budget as plain numbers. */
export function budgetOf(b: NonNullable<CheckedFlow["budget"]>): PlanFlowRow["budget"] {
	return {
		...(b.tokens ? { tokens: b.tokens.value } : {}),
		...(b.cost ? { cost: b.cost.value } : {}),
		...(b.turns ? { turns: b.turns.value } : {}),
	};
}
