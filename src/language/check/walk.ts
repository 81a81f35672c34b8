/**
 * The checker's shared state while it walks a flow: where faults go, the roster, what memory scopes are
 * used, and how called flows are found. One walk per flow file.
 */
import type { LanguageKinds } from "../kind.ts";
import type { AgentDef, Roster, Skill } from "../../agents/index.ts";
import type { Fault, FaultCode } from "../../faults/index.ts";
import { fault } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import type { AgentNode, Flow, FlowNode } from "../ast.ts";
import type { AddressExpr } from "../syntax/index.ts";
import type { Type } from "../types/index.ts";
import type { CheckedFlow } from "./checked.ts";
import type { Resolved, Scope, ScopePoints } from "./scope.ts";

/** Finds and checks a called flow; supplied by whoever knows where flows live. */
export interface CalleeResolver {
	/** The checked callee, or why it cannot be called (unknown name, faults, a cycle). */
	check(
		name: string,
		stack: readonly string[],
	): { value: CheckedFlow } | { missing: string[] } | { faults: Fault[]; file: string } | { cycle: string[] };
}

/** Finds a skill, and lists them all for did-you-mean. */
export interface SkillResolver {
	find(name: string): Skill | undefined;
	names(): string[];
}

/** One use of a memory scope, for the sharing rules. */
export interface MemoryUse {
	scope: string;
	agent: string;
	output?: Type;
	node: AgentNode;
}

/** The walk's state. */
export interface Walk {
	flow: Flow;
	/** The kinds, handed in by the checker's entry: a kind checks its body back through here. */
	kinds: LanguageKinds;
	roster: Roster;
	faults: Fault[];
	/** Agents by node id (literal agents) and by `among` name. */
	agents: Map<string, AgentDef>;
	amongAgents: Map<string, Map<string, AgentDef>>;
	members: Map<string, { agent: AgentDef; count: number }[]>;
	types: Map<string, Type>;
	callees: Map<string, CheckedFlow>;
	memory: MemoryUse[];
	calls?: CalleeResolver;
	/** Finds skills by name. */
	skills?: SkillResolver;
	/** Each node's skills, by node id. */
	nodeSkills: Map<string, Skill[]>;
	/** Names of the flows being checked, outermost first (this one last). */
	stack: readonly string[];
	/**
	 * Ids and `<id>.<field>` parts refused so far, by the builder or this walk (a duplicate id, a call whose
	 * callee cannot be checked, a carry that does not meet): the scopes share this set, so a read of
	 * something refused is never reported as a second mistake.
	 */
	refused: Set<string>;
	/** When true, faults are not kept (the silent first pass over a loop body). */
	silent: boolean;
	/** What each address that resolved binds, by its parsed form (the real pass's answer wins). */
	resolutions: Map<AddressExpr, Resolved>;
	/** The scopes at each node, recorded by the passes that are not silent (the root is the walk's start). */
	points: Omit<ScopePoints, "root">;
}

/** Records a fault unless the walk is silent. */
export function report(
	w: Walk,
	code: FaultCode,
	range: Range,
	path: string,
	message: string,
	details?: Parameters<typeof fault>[5],
): void {
	if (!w.silent) w.faults.push(fault(code, w.flow.file, range, path, message, details));
}

/** Keeps faults unless silent. */
export function keep(w: Walk, faults: readonly Fault[]): void {
	if (!w.silent) w.faults.push(...faults);
}

/** The agents a node may run: its literal agent, or each of `among`. */
export function agentsOf(w: Walk, node: FlowNode): AgentDef[] {
	if (node.kind !== "agent") return [];
	const literal = w.agents.get(node.id.value);
	if (literal) return [literal];
	return [...(w.amongAgents.get(node.id.value)?.values() ?? [])];
}

/** Records where a block's body starts, for the language server (the real pass only). */
export function bodyStart(w: Walk, id: string, scope: Scope): void {
	if (!w.silent) w.points.bodyStart.set(id, scope);
}
