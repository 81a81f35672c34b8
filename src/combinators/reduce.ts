/**
 * `reduce`, N to 1: one agent turns several answers into one. Failed branches are shown, never dropped:
 * a synthesis of six reports when two crashed, with nothing saying so, is a confident lie.
 *
 *   const answer = await reduce({ agent: synthesiser, results: fan.results, input: question, cwd, spawn });
 *   answer.steps;   // the branches, then the synthesis
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import { createTrail } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { labelBranches } from "./branches.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Options of {@link reduce}. */
export interface ReduceOptions extends WorkflowOptions {
	/** The synthesiser. */
	agent: AgentDef;
	/** The answers to bring together, failed ones included; filter the array to leave any out. */
	results: readonly Result[];
	/** The question the synthesis answers. */
	input: string;
}

/**
 * The synthesiser's task: the question, then every report under its heading. A failed report is shown
 * with its error, and the count of failures is said outright so the synthesis cannot miss it.
 */
export function synthesisTask(input: string, results: readonly Result[]): string {
	const failed = results.filter((r) => !r.ok).length;
	const note =
		failed > 0 ? `\n\n${failed} of ${results.length} reports failed; say what is missing because of it.` : "";
	const reports = results.length > 0 ? labelBranches(results) : "(no reports)";
	return `${input}\n\n# Reports\n\nAnswer from these ${results.length} reports.${note}\n\n${reports}`;
}

/**
 * Asks `agent` for one answer from every result. The reduce reads as its synthesis (its only turn); its
 * `steps` are the branches followed by the synthesis, and its usage counts them all, because the cost of
 * an N to 1 is the cost of everything that produced it.
 */
export async function reduce(options: ReduceOptions): Promise<WorkflowResult> {
	const trail = createTrail();
	for (const branch of options.results) trail.record(branch);
	const pool = createPool(options, trail);
	let synthesis: Result;
	try {
		synthesis = await pool.turn(options.agent, synthesisTask(options.input, options.results));
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(synthesis, trail, {});
}
