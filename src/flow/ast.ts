/**
 * The flow AST: typed nodes built from a read file, every value with its range, so the checker and every
 * renderer can point at the exact place a value was written.
 */
import type { FlowFile, Section } from "./read/index.ts";
import type { Range } from "../text/index.ts";

/** A value and where it was written. */
export interface Located<T> {
	value: T;
	range: Range;
}

/** A read address: a name followed by fields (`plan.output.tasks`, `input`, `scout`). */
export interface Address {
	/** The first segment: a node id or an address word (`input`). */
	root: string;
	fields: string[];
	/** The address as written. */
	text: string;
	range: Range;
}

/** One turn of an agent from the roster. */
export interface AgentNode {
	kind: "agent";
	id: Located<string>;
	/** The node's path through its enclosing nodes: `id` at the root, `deliver/work/code` inside blocks. */
	path: string;
	agent: Located<string>;
	reads: Address[];
	/** Overrides the flow's and the agent's model for this node (a run option still wins). */
	model?: Located<string>;
	range: Range;
}

/** Every node kind the language has built so far. */
export type FlowNode = AgentNode;

/** A flow's declared input. */
export interface InputDecl {
	/** `string` is the common case; a typed input keeps its YAML range for the type layer. */
	type: "string";
}

/** A flow as built: the frontmatter as typed data plus the body's sections. */
export interface Flow {
	file: string;
	name: Located<string>;
	description: Located<string>;
	input: Located<InputDecl>;
	model?: Located<string>;
	nodes: FlowNode[];
	sections: Section[];
	preamble?: Range;
	source: FlowFile;
}
