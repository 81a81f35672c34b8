/**
 * `fanOut`, 1 to N: one agent, N tasks, bounded concurrency. Answers come back in the order of the tasks,
 * not of completion, so the n-th answer always belongs to the n-th task; a failed branch keeps its slot.
 *
 *   const { results, usage } = await fanOut({ agent: scout, tasks, concurrency: 2, cwd, spawn });
 *   usage.busyMs / usage.wallMs;   // the parallelism actually achieved
 */
import type { AgentDef } from "../agents/index.ts";
import { cancelReason } from "../runtime/index.ts";
import { mapConcurrent } from "../runtime/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readBranches } from "./branches.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Options of {@link fanOut}. */
export interface FanOutOptions extends WorkflowOptions {
	agent: AgentDef;
	/** One branch per task; each is the whole task its branch is given. */
	tasks: readonly string[];
	/** Branches in flight at once; a whole number of at least 1. */
	concurrency: number;
	/**
	 * Calls the other branches off as soon as one fails: running ones are cut and unstarted ones refused,
	 * each failing `aborted` with an error that starts `cancelled:`. Default: false, the others carry on.
	 */
	failFast?: boolean;
}

/** A fan-out's outcome: the branches in task order, besides the labelled reading. */
export type FanOutResult = WorkflowResult & {
	/** One result per task, in the order of `tasks`; a failed branch is `ok: false` in its slot. */
	results: Result[];
};

/**
 * Runs every task on its own subagent. As one `Result` the fan-out is every branch's output under a
 * heading naming its agent, a failed one marked with its error, and `ok` is false the moment one failed.
 */
export async function fanOut(options: FanOutOptions): Promise<FanOutResult> {
	const { agent, tasks } = options;
	const cancel = new AbortController();
	const signal = options.signal ? AbortSignal.any([options.signal, cancel.signal]) : cancel.signal;
	const pool = createPool({ ...options, signal });
	let results: Result[] = [];
	try {
		results = await mapConcurrent(tasks, options.concurrency, async (task, i) => {
			// The key is the branch, so in a kept lifetime two branches never share a memory.
			const result = await pool.turn(agent, task, { key: `${agent.name}[${i}]` });
			if (!result.ok && options.failFast && !cancel.signal.aborted) {
				cancel.abort(cancelReason(`${agent.name} (${i + 1}/${tasks.length}) failed`));
			}
			return result;
		});
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(readBranches(results, agent.name, pool.trail.broken()), pool.trail, { results });
}
