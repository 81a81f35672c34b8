/**
 * The contract every combinator returns: a `Result` read for the whole workflow, plus the trail that led
 * to it. Sharing it is what lets workflows compose, and lets a caller or a tool call read any of them the
 * same way without rebuilding one.
 */
import type { Result } from "../runtime/index.ts";
import type { Trail, WorkflowUsage } from "../runtime/index.ts";

/**
 * A workflow's outcome. `ok` only ever means that every turn the reading rests on ran; what the work
 * achieved (`converged`, `plan`, `answers`, ...) is said in fields of each combinator's own.
 */
export type WorkflowResult = Result & {
	/** The trail: every turn played (refusals included), in the order they ended. */
	steps: Result[];
	/** Summed over the steps; `ms`/`wallMs` is wall time, `busyMs` the turns' time added up. */
	usage: WorkflowUsage;
};

/** Puts a combinator's reading together with its trail and its own fields. */
export function readWorkflow<X extends object>(reading: Result, trail: Trail, extra: X): WorkflowResult & X {
	return { ...reading, steps: [...trail.steps], usage: trail.usage(), ...extra };
}

/** The reading marked failed by the first broken step, when the reading itself did not fail. */
export function failedBy(reading: Result, broken: Result | undefined): Result {
	if (!reading.ok || !broken) return reading;
	return {
		...reading,
		ok: false,
		error: broken.error ?? "a turn failed",
		...(broken.errorKind ? { errorKind: broken.errorKind } : {}),
	};
}

/** A failed reading for a workflow that stopped before or without a turn of its own (a refusal, a bad plan). */
export function failure(base: Result, error: string, errorKind: Result["errorKind"]): Result {
	return { ...base, ok: false, error, ...(errorKind ? { errorKind } : {}) };
}
