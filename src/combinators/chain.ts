/**
 * `chain`, 1 to 1 to 1: each step answers the previous one. It exists for work that is genuinely
 * sequential, where the next agent cannot start without the last one's answer.
 *
 *   const result = await chain({ steps: [scout, reviewer], input: "Is the parser sound?", cwd, spawn });
 *   result.output;   // the reviewer's answer; result.steps holds the scout's too
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Options of {@link chain}. */
export interface ChainOptions extends WorkflowOptions {
	/** The agents, in order; at least one. */
	steps: readonly AgentDef[];
	/** The first step's task. */
	input: string;
}

/**
 * Runs the steps in order, the output of step n being the input of step n+1. A failing step stops the
 * chain, because there is no input left for the next one. The chain reads as its last step played.
 */
export async function chain(options: ChainOptions): Promise<WorkflowResult> {
	if (options.steps.length === 0) throw new RangeError("pi-flows: chain needs at least one step");
	const pool = createPool(options);
	let last: Result | undefined;
	let input = options.input;
	try {
		for (const agent of options.steps) {
			last = await pool.turn(agent, input);
			if (!last.ok) break;
			input = last.output;
		}
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(last as Result, pool.trail, {});
}
