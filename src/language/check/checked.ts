/**
 * Only the checker makes a {@link CheckedFlow}: the brand is a type-only symbol nothing else can forge, so
 * "checked before anything spawns" holds by construction: the evaluator takes nothing else.
 */
import type { AgentDef, Skill } from "../../agents/index.ts";
import { childrenOf, type Flow } from "../ast.ts";
import type { AddressExpr } from "../syntax/index.ts";
import type { LanguageKinds } from "../kind.ts";
import type { Type } from "../types/index.ts";
import type { Bound } from "./bounds.ts";
import type { Resolved } from "./scope.ts";

declare const checked: unique symbol;

/** What the checker learnt about a flow, beyond its AST. */
export interface CheckedFacts {
	/** Each literal agent node's agent, by node id. */
	readonly agents: ReadonlyMap<string, AgentDef>;
	/** Each `agent-from` node's agents, by node id then agent name. */
	readonly amongAgents: ReadonlyMap<string, ReadonlyMap<string, AgentDef>>;
	/** Each swarm's members, by node id. */
	readonly members: ReadonlyMap<string, readonly { agent: AgentDef; count: number }[]>;
	/** Each node's skills (their text goes into the system prompt), by node id. */
	readonly skills: ReadonlyMap<string, readonly Skill[]>;
	/** Each prose node's section text, by node id. */
	readonly prompts: ReadonlyMap<string, string>;
	/** Each node's output type, by node id. */
	readonly types: ReadonlyMap<string, Type>;
	/** An agent node's `submit` type with the bounds its readers state (a map's `max`), where they add one. */
	readonly answerTypes: ReadonlyMap<string, Type>;
	/** Each `flow:` node's callee, checked whole, by node id. */
	readonly callees: ReadonlyMap<string, CheckedFlow>;
	/** Worst case per node address, and for the whole flow. */
	readonly bounds: ReadonlyMap<string, Bound>;
	readonly bound: Bound;
	/** Whether any node (or callee) can write to the tree, and whether any commits. */
	readonly writes: boolean;
	readonly commits: boolean;
	/**
	 * What every address of the flow binds, by its parsed form (in `reads:`, the `-from` keys, `carry`,
	 * `input` and conditions; names bound by `all`/`exists` are the condition's own): the evaluator reads
	 * values through it and never resolves a name itself.
	 */
	readonly resolutions: ReadonlyMap<AddressExpr, Resolved>;
	/**
	 * The kind table the flow was checked with. What reads a checked flow by its kinds (the renderers, the
	 * run's count of absorbed failures) reads this one, so no stage imports a table of its own and a flow is
	 * never drawn by kinds it was not judged by.
	 */
	readonly kinds: LanguageKinds;
}

/** A flow the checker found no fault in, with what it resolved. */
export type CheckedFlow = Flow & CheckedFacts & { readonly [checked]: true };

/** The brand, applied by the checker alone. */
export function brand(flow: Flow, facts: CheckedFacts): CheckedFlow {
	return Object.assign(flow, facts) as unknown as CheckedFlow;
}

/** Addresses of the nodes a script can answer (agents and swarms), callees' prefixed by their call. */
export function scriptableAddresses(flow: CheckedFlow, prefix = ""): string[] {
	const out: string[] = [];
	const walk = (nodes: Flow["nodes"]) => {
		for (const node of nodes) {
			if (flow.kinds.modelTurns.has(node.kind)) out.push(`${prefix}${node.path}`);
			if (node.kind === "flow") {
				const callee = flow.callees.get(node.id.value);
				if (callee) out.push(...scriptableAddresses(callee, `${prefix}${node.path}/`));
			}
			// Every block's inner nodes, by the AST's one exhaustive switch (a new block kind is walked too).
			walk(childrenOf(node));
		}
	};
	walk(flow.nodes);
	return out;
}
