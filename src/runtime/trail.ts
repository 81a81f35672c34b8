/**
 * What a workflow's turns add up to. A combinator reports from its trail rather than keeping its own list
 * and clock, so every workflow counts steps, cost and time the same way, refusals included.
 */
import type { Result } from "./result.ts";
import { addUsage, type Usage } from "./usage.ts";

/**
 * Usage of a whole workflow: tokens summed over its steps, `ms` its wall time, and `busyMs` the time its
 * turns took added up, so `busyMs / wallMs` is the parallelism actually achieved.
 */
export interface WorkflowUsage extends Usage {
	/** The turns' time added up (a nested workflow contributes its own busy time). */
	busyMs: number;
	/** The trail's wall time; the same as `ms`, named so the ratio reads plainly. */
	wallMs: number;
}

/** The record of a workflow's steps, in the order they ended. */
export interface Trail {
	/** Every step recorded, refusals included, in order. */
	readonly steps: readonly Result[];
	/** Records a step and hands it back, so a step is recorded where it is made. */
	record<R extends Result>(result: R): R;
	/** Tokens summed over the steps; `ms`/`wallMs` from the trail's opening to its last step. */
	usage(): WorkflowUsage;
	/** The first step that failed, if any. */
	broken(): Result | undefined;
}

/** Opens a trail; its clock starts now. */
export function createTrail(): Trail {
	const started = performance.now();
	let lastAt = started;
	const steps: Result[] = [];
	return {
		steps,
		record(result) {
			steps.push(result);
			lastAt = performance.now();
			return result;
		},
		usage() {
			const sum = addUsage(...steps.map((s) => s.usage));
			const busyMs = steps.reduce((total, s) => total + ((s.usage as Partial<WorkflowUsage>).busyMs ?? s.usage.ms), 0);
			// Ending at the last step, not at the call, keeps the figure the same however late it is read.
			const wallMs = (steps.length > 0 ? lastAt : performance.now()) - started;
			return { ...sum, ms: wallMs, busyMs, wallMs };
		},
		broken: () => steps.find((s) => !s.ok),
	};
}
