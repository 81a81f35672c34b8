/**
 * The flow AST: typed nodes built from a read file. Every value keeps the range it was written at, so the
 * checker and every renderer can point at the exact place; conditions, addresses, types and durations
 * arrive already parsed by the sub-language parsers.
 */
import type { Range } from "../text/index.ts";
import type { AddressExpr, Expr } from "./syntax/index.ts";
import type { Type } from "./types/index.ts";
import type { FlowFile, Section } from "./read/index.ts";

/** A value and where it was written. */
export interface Located<T> {
	value: T;
	range: Range;
}

/** A read address: a name followed by fields (`plan.output.tasks`, `input`, `item.text`). */
export interface Address {
	/** The first segment: a node id, an address word (`input`, `item`, `diff`) or a map/macro variable. */
	root: string;
	fields: string[];
	/** The address as written. */
	text: string;
	range: Range;
	/** The parsed form, each segment with its own range. */
	expr: AddressExpr;
}

/** A parsed condition with its source text. */
export interface Condition {
	text: string;
	expr: Expr;
	range: Range;
}

/** What every node has. */
export interface NodeBase {
	id: Located<string>;
	/** The node address: ids of the enclosing nodes and this one, `deliver/work/code`. */
	path: string;
	/** `on-fail: continue`: a failure stops at this node instead of travelling up. */
	onFail?: Located<"continue">;
	/** `reuse:` on the kinds that take it (docs/runs.md, "Reuse"): leave the tree out, or never reuse. */
	reuse?: Located<ReuseOption>;
	range: Range;
}

/** What `reuse:` takes: `ignore-tree` (the tree is no part of the visit's identity) or `never`. */
export type ReuseOption = "ignore-tree" | "never";

/** Handoff settings of a flow or an agent node. */
export interface HandoffDecl {
	/** Context fraction at which the land-the-plane directive is steered, in (0, 1]. */
	watermark?: Located<number>;
	/** How many times a `partial` finish continues the node in a fresh session. */
	continuations?: Located<number>;
	range: Range;
}

/** One turn of an agent from the roster. */
export interface AgentNode extends NodeBase {
	kind: "agent";
	/** A literal agent name, or an address naming an enum together with `among`. */
	agent?: Located<string>;
	agentFrom?: Address;
	among?: Located<string>[];
	reads: Address[];
	output?: Located<Type>;
	memory?: Located<string>;
	verdict?: Located<string>;
	retry?: Located<number>;
	timeout?: Located<number>;
	model?: Located<string>;
	thinking?: Located<string>;
	/** Narrows the agent's tools; never widens them. */
	tools?: Located<string>[];
	/** Skills whose text is added to the agent's system prompt for this node. */
	skills?: Located<string>[];
	handoff?: HandoffDecl;
	/** Open a terminal pane following each visit's turns (`pane:`, or combo's `openInHerdr:`); wins over the agent's. */
	pane?: Located<boolean>;
}

/** One case of a choice. */
export interface ChoiceCase {
	/** The case's name in `<choice>.output.case`; `1`, `2`, ... when unnamed. */
	name?: Located<string>;
	when: Condition;
	body: FlowNode[];
	range: Range;
}

/** Ordered cases, the first that holds runs; `default` otherwise. */
export interface ChoiceNode extends NodeBase {
	kind: "choice";
	cases: ChoiceCase[];
	otherwise: FlowNode[];
}

/** How many branches must succeed for a block to succeed. */
export type Join = { kind: "all" } | { kind: "any" } | { kind: "quorum"; count: number };

/** Named branches started at once. */
export interface ParallelNode extends NodeBase {
	kind: "parallel";
	branches: { name: Located<string>; body: FlowNode[] }[];
	copies?: Located<boolean>;
	failFast?: Located<boolean>;
	join?: Located<Join>;
}

/** The body runs once per item. */
export interface MapNode extends NodeBase {
	kind: "map";
	/** A literal list of strings, or an address of a list. */
	items?: Located<string>[];
	from?: Address;
	max?: Located<number>;
	concurrency?: Located<number>;
	copies?: Located<boolean>;
	failFast?: Located<boolean>;
	ledger?: Located<string>;
	join?: Located<Join>;
	body: FlowNode[];
}

/** The body repeats until its condition holds, at most `max` times. */
export interface LoopNode extends NodeBase {
	kind: "loop";
	/** Absent only when its condition was refused (the fault is already reported). */
	until?: Condition;
	max?: Located<number>;
	giveUp?: Condition;
	carry?: { first: Address; next: Address; range: Range };
	ledger?: Located<string>;
	body: FlowNode[];
}

/** A project script run with bash. */
export interface CheckNode extends NodeBase {
	kind: "check";
	script?: Located<string>;
	timeout?: Located<number>;
}

/** Commits the tree on the run's own branch. */
export interface CommitNode extends NodeBase {
	kind: "commit";
	message?: Address;
}

/** A question to the person running the flow. */
export interface AskNode extends NodeBase {
	kind: "ask";
	question?: Located<string>;
	questionFrom?: Address;
	options?: { label: Located<string>; description?: string }[];
	confirm?: Located<boolean>;
	enough?: Located<string>;
	/** The answer taken when nobody is there or the card times out. */
	fallback?: Located<unknown>;
	reads: Address[];
	timeout?: Located<number>;
}

/** Another flow run whole as one node. */
export interface CallNode extends NodeBase {
	kind: "flow";
	callee?: Located<string>;
	input?: Address;
}

/** Several members, one goal, a board and claims; nobody divides the work. */
export interface SwarmNode extends NodeBase {
	kind: "swarm";
	members: { agent: Located<string>; count: number; range: Range }[];
	rounds?: Located<number>;
	claimsFrom?: Address;
	until?: Condition;
	reads: Address[];
	timeout?: Located<number>;
}

/** The run sleeps for a duration, or for one an earlier node produced, at most `max`. */
export interface WaitNode extends NodeBase {
	kind: "wait";
	/** `wait: 90s`, in ms. */
	ms?: Located<number>;
	/** `wait-from:` an address of a duration (`"90s"`) or a number of seconds. */
	from?: Address;
	/** `max:` beside `wait-from`: the longest it waits, in ms. */
	max?: Located<number>;
}

/** Every node kind of the language. */
export type FlowNode =
	| AgentNode
	| ChoiceNode
	| ParallelNode
	| MapNode
	| LoopNode
	| CheckNode
	| CommitNode
	| AskNode
	| CallNode
	| SwarmNode
	| WaitNode;

/** The kinds, as the `kind` field spells them. */
export type NodeKind = FlowNode["kind"];

/** A flow's budget: the run ends (resumably) when any limit is reached. */
export interface BudgetDecl {
	tokens?: Located<number>;
	cost?: Located<number>;
	turns?: Located<number>;
	range: Range;
}

/** The budget a flow's `chain:` states with `--budget-total` and `--budget-warning`, where they are written. */
export interface ChainBudgetDecl {
	total?: Located<number>;
	warning?: Located<number>;
}

/** How hard a flow's model requests are retried in transit (429, 5xx, cut streams), over the run's settings. */
export interface TransportDecl {
	/** Tries per request, the first included. */
	attempts?: Located<number>;
	/** All waits of one request together, in milliseconds. */
	wait?: Located<number>;
	/** A stream silent this long is abandoned and sent again, in milliseconds. */
	stall?: Located<number>;
	/** Adapts requests in flight to the provider's rate limits. */
	adaptive?: Located<boolean>;
	range: Range;
}

/** A flow as built: the frontmatter as typed data plus the body's sections. */
export interface Flow {
	file: string;
	name: Located<string>;
	description: Located<string>;
	input: Located<Type>;
	model?: Located<string>;
	timeout?: Located<number>;
	budget?: BudgetDecl;
	handoff?: HandoffDecl;
	transport?: TransportDecl;
	/** The chain string when the flow was written with `chain:` instead of `nodes:`. */
	chain?: Located<string>;
	/** The chain's own budget flags; they bind beside `budget:` (the smaller limit wins). */
	chainBudget?: ChainBudgetDecl;
	nodes: FlowNode[];
	sections: Section[];
	preamble?: Range;
	/**
	 * The file as read, without its parsed frontmatter: a checked flow lives as long as its run, and the YAML
	 * tree, an object or three per list item, is read only while the flow is built.
	 */
	source: FlowSource;
}

/** A flow file as read, less the YAML tree its nodes were built from. */
export type FlowSource = Omit<FlowFile, "yaml">;

/**
 * Nodes directly inside a node (its bodies, in order). Kept here, beside the union, so any layer can walk a
 * tree without loading the kind modules; a kind module's `bodies` gives the same nodes with the plan's
 * labels (test/kinds/kinds.test.ts holds the two together).
 */
export function childrenOf(node: FlowNode): FlowNode[] {
	switch (node.kind) {
		case "choice":
			return [...node.cases.flatMap((c) => c.body), ...node.otherwise];
		case "parallel":
			return node.branches.flatMap((b) => b.body);
		case "map":
		case "loop":
			return node.body;
		case "agent":
		case "check":
		case "commit":
		case "ask":
		case "flow":
		case "swarm":
		case "wait":
			return [];
		default:
			return unknownKind(node);
	}
}

/** The end of an exhaustive switch on `kind`: a kind the switch forgot is a compile error at its call. */
export function unknownKind(node: never): never {
	throw new Error(`unknown node kind: ${(node as { kind?: unknown }).kind}`);
}

/** Every node of a sequence, depth first, in file order. */
export function allNodes(nodes: readonly FlowNode[]): FlowNode[] {
	const out: FlowNode[] = [];
	const walk = (list: readonly FlowNode[]) => {
		for (const n of list) {
			out.push(n);
			walk(childrenOf(n));
		}
	};
	walk(nodes);
	return out;
}
