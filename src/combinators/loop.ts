/**
 * `loop`, 1 to 1 until a bar is reached: the same steps again, each round seeing the last round's answer,
 * until `until` says the work is done or `maxIterations` runs out. Reaching the cap is not success, so
 * `converged` is reported apart from `ok`.
 *
 *   const review = await loop({ steps: [coder, reviewer], input, until: (s) => /LGTM/.test(s.output), cwd, spawn });
 *   review.ok && review.converged;
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Iterations when none is given: a discrete, expensive unit with a meaningful small bound. */
export const DEFAULT_MAX_ITERATIONS = 5;

/** Options of {@link loop}. */
export interface LoopOptions extends WorkflowOptions {
	/** One iteration: these agents as a chain. At least one. */
	steps: readonly AgentDef[];
	/** The first iteration's task, and the task every later iteration is reminded of. */
	input: string;
	/** Asked of the last step of each iteration: has the work reached the bar? */
	until: (step: Result) => boolean;
	/** Default: 5. "Loop forever" must not be reachable by forgetting an argument. */
	maxIterations?: number;
}

/** A loop's outcome. */
export type LoopResult = WorkflowResult & {
	/** Whether `until` fired: the work reached the bar, rather than running out of iterations. */
	converged: boolean;
	/** Iterations begun. */
	iterations: number;
};

/**
 * Runs the steps as a chain, again and again. Iteration 1 gets `input`; each later one gets `input` with
 * the last iteration's final answer under `## Last round`, so a task-lifetime coder still knows the task.
 * A failing step stops the loop (`ok: false`); `ok` says the last turn ran, `converged` that `until` fired.
 */
export async function loop(options: LoopOptions): Promise<LoopResult> {
	const max = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
	if (!Number.isInteger(max) || max < 1)
		throw new RangeError(`pi-flows: maxIterations must be a whole number of at least 1, not ${max}`);
	if (options.steps.length === 0) throw new RangeError("pi-flows: loop needs at least one step");
	const pool = createPool(options);
	let last: Result | undefined;
	let converged = false;
	let iterations = 0;
	try {
		while (iterations < max && !converged) {
			iterations++;
			let input = last ? `${options.input}\n\n## Last round\n\n${last.output}` : options.input;
			for (const agent of options.steps) {
				last = await pool.turn(agent, input);
				if (!last.ok) break;
				input = last.output;
			}
			if (!last?.ok) break;
			converged = options.until(last);
		}
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(last as Result, pool.trail, { converged, iterations });
}
