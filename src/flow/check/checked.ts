/**
 * Only the checker makes a {@link CheckedFlow}: the brand is a type-only symbol nothing else can forge, so
 * "checked before anything spawns" holds by construction: the evaluator takes nothing else.
 */
import type { AgentDef } from "../../agents/index.ts";
import type { Flow } from "../ast.ts";

declare const checked: unique symbol;

/** A flow the checker found no fault in, with the agents it names resolved. */
export type CheckedFlow = Flow & {
	readonly [checked]: true;
	/** Each agent node's agent, by node id. */
	readonly agents: ReadonlyMap<string, AgentDef>;
	/** Each agent node's section text, by node id. */
	readonly prompts: ReadonlyMap<string, string>;
};

/** The brand, applied by the checker alone. */
export function brand(flow: Flow, agents: Map<string, AgentDef>, prompts: Map<string, string>): CheckedFlow {
	return Object.assign(flow, { agents, prompts }) as unknown as CheckedFlow;
}
