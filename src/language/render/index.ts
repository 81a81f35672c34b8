/**
 * Stage 5's door: the renderings of a checked flow, pure functions of data. The plan (rows, then text) and
 * the Mermaid graph; the CLI, the extension and the docs print what these return.
 */
export { escapeLabel, mermaidOf } from "./mermaid.ts";
export {
	type PlanFlowRow,
	type PlanGroupRow,
	type PlanModelSource,
	type PlanNodeRow,
	type PlanOptions,
	type PlanRow,
	type PlanTimeoutSource,
	planOf,
} from "./plan.ts";
export { boundText } from "./phrases.ts";
export { inFlightOf, overshootText } from "./overshoot.ts";
export { boundsUnder } from "./run-bounds.ts";
export { showPlan } from "./show-plan.ts";
export { blockFacts, plural } from "./phrases.ts";
export type { NodeContext } from "./plan-node.ts";
