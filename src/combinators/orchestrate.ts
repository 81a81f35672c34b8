/**
 * `orchestrate`: an agent decides the split. A planner writes the tasks, they are checked against the
 * known workers BEFORE any worker spawns, the workers run in parallel, and an optional synthesiser turns
 * their answers into one.
 *
 *   const done = await orchestrate({ planner, workers: [scout, reviewer], input, reduceWith: synthesiser, cwd, spawn });
 *   done.plan;     // validated against the known agents
 *   done.answer;   // only with reduceWith
 */
import type { AgentDef } from "../agents/index.ts";
import { mapConcurrent } from "../runtime/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { type DroppedTask, type PlanTask, parsePlan } from "./plan.ts";
import { synthesisTask } from "./reduce.ts";
import { failedBy, failure, readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Tasks a plan may have when no bound is given. */
export const DEFAULT_MAX_TASKS = 8;

/** Options of {@link orchestrate}. */
export interface OrchestrateOptions extends WorkflowOptions {
	planner: AgentDef;
	/** The roster the plan may name, and nothing else. */
	workers: readonly AgentDef[];
	input: string;
	/** Turns the workers' answers into one; without it there is no synthesis. */
	reduceWith?: AgentDef;
	/** A plan with more tasks fails before any worker spawns. Default: 8. */
	maxTasks?: number;
	/** Workers in flight at once. Default: every task of the plan (at most `maxTasks`). */
	concurrency?: number;
}

/** An orchestration's outcome. */
export type OrchestrateResult = WorkflowResult & {
	/** The validated plan (empty when the planner failed). */
	plan: PlanTask[];
	/** What the planner wrote that was not a usable task, and why. */
	dropped: DroppedTask[];
	/** The workers' answers, in plan order. */
	results: Result[];
	/** The synthesis; present only when `reduceWith` was given and it ran. */
	answer?: Result;
};

/** The planner's task: the workers with what each is for, the format, the bound, then the request. */
export function plannerTask(input: string, workers: readonly AgentDef[], maxTasks: number): string {
	const list = workers.map((w) => `- ${w.name}: ${w.description}`).join("\n");
	return [
		`Split the request below into at most ${maxTasks} independent tasks, each for one of these workers.`,
		'Answer with a JSON array, one object per task: [{"agent": "<worker name>", "task": "<what to do>"}].',
		"Use only the names listed. Each task must make sense on its own: the workers do not see each other.",
		`\n## Workers\n\n${list}\n\n## Request\n\n${input}`,
	].join("\n");
}

/**
 * Plans, validates, runs the workers and (with `reduceWith`) synthesises. It reads as its synthesis when
 * it has one and its planner otherwise; `ok` is false if any turn failed, if the plan has no usable task,
 * or if it has more than `maxTasks` (kind `schema`, nothing spawned beyond the planner).
 */
export async function orchestrate(options: OrchestrateOptions): Promise<OrchestrateResult> {
	const maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
	if (!Number.isInteger(maxTasks) || maxTasks < 1)
		throw new RangeError(`pi-flows: maxTasks must be a whole number of at least 1, not ${maxTasks}`);
	const pool = createPool(options);
	const byName = new Map(options.workers.map((w) => [w.name, w]));
	let reading: Result;
	let plan: PlanTask[] = [];
	let dropped: DroppedTask[] = [];
	let results: Result[] = [];
	let answer: Result | undefined;
	try {
		const planner = await pool.turn(options.planner, plannerTask(options.input, options.workers, maxTasks));
		reading = planner;
		if (planner.ok) {
			({ tasks: plan, dropped } = parsePlan(planner.output, [...byName.keys()]));
			if (plan.length === 0) {
				reading = failure(planner, "the plan names no task for a known worker", "schema");
			} else if (plan.length > maxTasks) {
				reading = failure(planner, `the plan has ${plan.length} tasks, more than maxTasks ${maxTasks}`, "schema");
			} else {
				const context = `\n\n## Context\n\nThis is one part of a larger request:\n\n${options.input}`;
				results = await mapConcurrent(plan, options.concurrency ?? plan.length, (t, i) =>
					pool.turn(byName.get(t.agent) as AgentDef, `${t.task}${context}`, { key: `${t.agent}[${i}]` }),
				);
				if (options.reduceWith) {
					answer = await pool.turn(options.reduceWith, synthesisTask(options.input, results));
					reading = answer;
				}
				reading = failedBy(reading, pool.trail.broken());
			}
		}
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(reading, pool.trail, { plan, dropped, results, ...(answer ? { answer } : {}) });
}
