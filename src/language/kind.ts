/**
 * What a node kind is made of, as one contract: the language half of a kind (its keys and their schema,
 * its reader, its checker with its output type and bounds, and the words the plan, Mermaid and the report
 * print for it). Each kind fills it in its folder's `src/kinds/<kind>/language.ts`, and the registry
 * (`src/kinds/language.ts`) holds them in a table typed over the `FlowNode` union, so a kind added to the AST
 * and not here fails to compile. The run half (how a visit runs, what a dry run does) is the folder's
 * `run.ts`, gathered in `src/kinds/run.ts`: running needs the engine, and the checker must not load it.
 *
 * The renderers hand a kind their drawing primitives (`MermaidKit`, `GraphKit`), so a kind says what it
 * draws and the renderer keeps how lines, boxes and layout are written.
 */
import type { Flow, FlowNode } from "./ast.ts";
import type { NodeInput } from "./build/node.ts";
import type { Bound, CheckedFlow } from "./check/index.ts";
import type { Scope } from "./check/scope.ts";
import type { Walk } from "./check/walk.ts";
import type { JsonSchemaDoc } from "./keys.ts";
import type { NodeContext } from "./render/index.ts";
import type { PlanNodeRow } from "./render/index.ts";
import type { Type } from "./types/index.ts";

/** A kind key as written (`agent`, or its twin `agent-from`) and the schema of its value. */
export interface KindKey<K extends string = string> {
	key: K;
	schema: JsonSchemaDoc;
	/** Keys this kind key needs besides `id` and itself (`map-from` needs `max`). */
	requires?: readonly string[];
	/** Keys of the kind this kind key refuses (they belong to its twin). */
	excludes?: readonly string[];
	/** What is wrong together on this kind key, as JSON Schema (`verdict` beside `output`). */
	rules?: JsonSchemaDoc;
	/**
	 * Keys of the kind the builder refuses beside this kind key, each with where it belongs instead (the
	 * unknown-key fault says so). The schema still lists them: it has always been looser here.
	 */
	refuses?: Readonly<Record<string, string>>;
}

/** One body of a block, with the line the plan prints above it (none: the body reads as the node's own). */
export interface Body {
	label?: string;
	body: readonly FlowNode[];
}

/** What a kind's bounds are computed with: its flow, and the bound and width of any inner sequence. */
export interface BoundKit {
	flow: Flow;
	/** The worst case of a sequence (each node's bound is recorded by address on the way). */
	seq(list: readonly FlowNode[]): Bound;
	/** The most turns a sequence can have in flight. */
	widest(list: readonly FlowNode[]): number;
	/** A called flow's bound, when the callee was checked. */
	callee(node: FlowNode): Bound | undefined;
}

/** What the Mermaid renderer lends a kind to draw itself with. */
export interface MermaidKit {
	flow: CheckedFlow;
	/** The indentation of the node's own lines. */
	indent: string;
	/** `on-fail: continue`, or "" when the node has none. */
	onFail: string;
	/** The output lines, appended to. */
	out: string[];
	/** A fresh Mermaid id (`n7`). */
	next(): string;
	/** A quoted, escaped label of the parts joined with `<br/>`. */
	label(...parts: string[]): string;
	/** Draws a sequence; its first and last ids, so the caller can link around it. */
	seq(nodes: readonly FlowNode[], indent: string): { first?: string; last?: string };
	/** A subgraph titled with the parts joined by ` · `; `body` draws inside at `inner`. */
	subgraph(title: string[], indent: string, body: (inner: string, id: string) => void): string;
	/** A leaf box: the node's id over `lines` and its on-fail. */
	box(lines: string[]): string;
}

/** What the report's graph lends a kind to lay itself out with; `L` is the graph's laid-out piece. */
export interface GraphKit<L> {
	flow: CheckedFlow;
	/** The node's address in the run (`deliver/work/code`). */
	address: string;
	onFail: string;
	/** ` · max 3 · copies`, or "" (the same facts the plan and Mermaid print). */
	facts: string;
	/** A leaf box with one line of detail under the id. */
	leaf(detail: string): L;
	/** A box titled `id · kindLine`, then `notes` and the visit count, around `body`. */
	block(kindLine: string, notes: string[], body: L): L;
	/** A sequence laid top to bottom, its nodes addressed under `prefix` (the node's address by default). */
	sequence(nodes: readonly FlowNode[], prefix?: string, flow?: CheckedFlow): L;
	/** Pieces side by side. */
	side(parts: L[]): L;
	/** A dashed, labelled box (a branch or a case: not a node, so no state). */
	branch(label: string, body: L): L;
	/** "nothing", for an empty body. */
	nothing(): L;
}

/**
 * Everything the language knows about one node kind. `N` is the kind's AST node; the registry types each
 * entry with its own node, so a kind module can only read its own fields. `K` names its kind keys, so the
 * registry can give their union a type (the fuzzer's generators are a table over it).
 */
export interface KindModule<N extends FlowNode, K extends string = string> {
	kind: N["kind"];
	/** The kind keys that make this kind: the literal first, its `-from` twin (an address) second. */
	kindKeys: readonly KindKey<K>[];
	/** The keys the kind takes besides `id`, its kind key and `on-fail`, each with its schema, in order. */
	keys: Readonly<Record<string, JsonSchemaDoc>>;
	/** Why `retry:` is refused on this kind; absent when the kind retries. */
	noRetry?: string;
	/** Whether the node has a `## <id>` section (agent turns, and swarms whose section is the goal). */
	section: boolean;
	/**
	 * Whether a visit runs no inner visit (no body, no callee): its failure is its own. A block's or a
	 * call's failure is an inner visit's, counted there (the run's absorbed failures, the timeline's bars).
	 */
	leaf: boolean;
	/**
	 * Whether a visit is a model's turns (an agent's turn, a swarm's members'): its usage is its own model
	 * requests (a block's only sums its children's), it keeps a transcript, and a script answers it. What
	 * reads a journal counts and reuses visits by this, never by naming the kinds.
	 */
	modelTurns: boolean;
	/** Builds the node from its keys (the id, kind key and `on-fail` are read already). */
	read(input: NodeInput): N;
	/**
	 * Checks the node against what ended before it; its output's type. The rule is written in the kind's
	 * module, as a function declaration (hoisted, so the table can name it while the module loads); it calls
	 * the checker's shared helpers (`check/reads.ts`, `check/sequence.ts`, `check/walk.ts`) only when a flow
	 * is checked, never while the modules load, because the checker and the kind modules import each other.
	 */
	check(w: Walk, node: N, scope: Scope): Type;
	/** The output type the kind gives by itself; undefined when its body or its callee decides it. */
	output(node: N): Type | undefined;
	/** The node's bodies in order (none for a leaf). */
	bodies(node: N): Body[];
	/** Worst-case turns, time and wait of one visit. */
	bound(node: N, kit: BoundKit): Bound;
	/** The most turns one visit can have in flight. */
	width(node: N, kit: BoundKit): number;
	/** The node with every turn bounded by `ms` (a run's `--timeout`); `seq` does the same to a body. */
	timed(node: N, ms: number, seq: (list: readonly FlowNode[]) => FlowNode[]): N;
	/** Fills the plan row: what the node runs, reads, outputs and is bounded by. */
	plan(node: N, row: PlanNodeRow, c: NodeContext): void;
	/** Draws the node into a Mermaid flowchart; its Mermaid id. */
	mermaid(node: N, kit: MermaidKit): string;
	/** Lays the node out in the report's graph. */
	graph<L>(node: N, kit: GraphKit<L>): L;
}

/** The registry's type: one module per kind of the union, each typed with its own node. */
export type KindTable = { [K in FlowNode["kind"]]: KindModule<Extract<FlowNode, { kind: K }>> };

/**
 * The language half's table with the lists every stage derives from it, as the stages receive it: the
 * builder and the checker as an argument (then through the builder's context and the checker's walk),
 * bounds through their caller, the renderers through the checked flow (`CheckedFlow.kinds`). The stages
 * never import a kind (nor the table module): a kind calls back into them (a block reads and checks its
 * body), so a stage that imported the table would close a circle of imports through every kind.
 */
export interface LanguageKinds {
	readonly table: KindTable;
	/** The kinds as the `kind` field spells them, in the table's order. */
	readonly names: readonly FlowNode["kind"][];
	/** Kind keys: a node is `id` plus exactly one of these (twins count as one kind). */
	readonly kindKeys: readonly string[];
	/** The kind a kind key makes. */
	readonly kindOfKey: Readonly<Record<string, FlowNode["kind"]>>;
	/** Keys each kind takes besides `id`, its kind key and `on-fail`. */
	readonly nodeKeys: Readonly<Record<string, readonly string[]>>;
	/** Which kind a key belongs to, for "it belongs to loop nodes" in unknown-key faults (the first kind wins). */
	readonly keyOwner: ReadonlyMap<string, string>;
	/** The kinds whose visits run no inner visit. */
	readonly leaves: ReadonlySet<string>;
	/** The kinds whose visits are a model's turns (agent turns, swarms). */
	readonly modelTurns: ReadonlySet<string>;
	/** Node keys whose value is an address (or a list of them): the language server reads them as one. */
	readonly addressKeys: ReadonlySet<string>;
	/** Node keys whose value is a condition. */
	readonly conditionKeys: ReadonlySet<string>;
	/** A node's kind module, typed with the node's own type. */
	of<N extends FlowNode>(node: N): KindModule<N>;
	/** A kind's module by its name. */
	named(kind: FlowNode["kind"]): KindModule<FlowNode>;
}

/** Derives the lists of a kind table once, for the stages to share. */
export function languageKinds(table: KindTable): LanguageKinds {
	const names = Object.keys(table) as FlowNode["kind"][];
	const named = (kind: FlowNode["kind"]) => table[kind] as unknown as KindModule<FlowNode>;
	const modules = names.map(named);
	const nodeKeys = Object.fromEntries(modules.map((m) => [m.kind, Object.keys(m.keys)]));
	// Every key a node can write with its schema; a key's kind of value is read off its schema's reference.
	const schemas = modules.flatMap((m) => [
		...m.kindKeys.map((k) => [k.key, k.schema] as const),
		...Object.entries(m.keys),
	]);
	const refersTo = (def: string) =>
		new Set(
			schemas
				.filter(([, s]) => [s.$ref, (s.items as JsonSchemaDoc | undefined)?.$ref].includes(`#/$defs/${def}`))
				.map(([k]) => k),
		);
	return {
		table,
		names,
		kindKeys: modules.flatMap((m) => m.kindKeys.map((k) => k.key)),
		kindOfKey: Object.fromEntries(modules.flatMap((m) => m.kindKeys.map((k) => [k.key, m.kind]))),
		nodeKeys,
		keyOwner: new Map(
			Object.entries(nodeKeys)
				.flatMap(([kind, keys]) => keys.map((k) => [k, `${kind} nodes`] as [string, string]))
				.reverse(),
		),
		leaves: new Set(modules.filter((m) => m.leaf).map((m) => m.kind)),
		modelTurns: new Set(modules.filter((m) => m.modelTurns).map((m) => m.kind)),
		addressKeys: refersTo("address"),
		conditionKeys: refersTo("condition"),
		of: <N extends FlowNode>(node: N) => table[node.kind as FlowNode["kind"]] as unknown as KindModule<N>,
		named,
	};
}
