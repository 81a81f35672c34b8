/**
 * The run half of a node kind, as the engine calls it: how one visit runs, and what a dry run does instead.
 * Each kind fills it in `kinds/<kind>/run.ts`; the table of them (`kinds/run.ts`) is typed over the
 * `FlowNode` union, so a kind without its run half does not compile.
 */
import type { FlowNode } from "../language/ast.ts";
import type { Frame, VisitRecord } from "./frames.ts";
import type { World } from "./world.ts";

/** How a visit ended: its record, and for a block the inner visit a failure started at. */
export interface VisitEnd {
	record: VisitRecord;
	failedAt?: string;
}

/** The run half of one node kind. */
export interface KindRunner<N extends FlowNode> {
	/** Runs one visit of the node in `frame` (announcing it is the walk's job). */
	run(world: World, node: N, frame: Frame, visit: string, signal: AbortSignal): Promise<VisitEnd>;
	/** What a dry run does for this kind: the same runner on the dry ports of `dry.ts`. */
	dry: string;
	/**
	 * Whether `run` goes through `reuseOrRun` (`reuse.ts`), which journals the visit's identity and may take
	 * the visit from an earlier run. The walk identifies every other visit (a block, a call, a commit) as it
	 * starts, so a kind that said neither would be journaled without an identity or with two.
	 */
	reuses: boolean;
	/**
	 * Whether a visit can change the tree without a tool call the walk sees (a check's script, a swarm's
	 * members): reuse then looks at the tree itself for the change to record, not only after a writing tool.
	 */
	unseenWrites: boolean;
}

/** The run table's type: one run half per kind of the union, each typed with its own node. */
export type RunTable = { [K in FlowNode["kind"]]: KindRunner<Extract<FlowNode, { kind: K }>> };
