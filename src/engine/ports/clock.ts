/**
 * The clock a run reads and waits on, as a port: a `wait` node sleeps through it, so a dry run and a flow
 * test swap in a clock that advances at once (they swap the ports, never the runner), and the DBOS backend
 * swaps in its durable sleep. The system clock's sleep goes through `longTimeout`, so a wait longer than one
 * `setTimeout` holds is still kept.
 */
import { longTimeout } from "../../runtime/index.ts";

/** Time as a run sees it. */
export interface Clock {
	/** Milliseconds since the epoch. */
	now(): number;
	/** Resolves once `ms` have passed, or rejects with the signal's reason once it aborts. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The machine's clock: real time, real sleeps. */
export const SYSTEM_CLOCK: Clock = {
	now: () => Date.now(),
	sleep: (ms, signal) => abortableSleep(ms, signal),
};

/** A sleep on real time that an abort ends at once. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((done, fail) => {
		if (signal?.aborted) return fail(signal.reason);
		const onAbort = () => {
			timer.clear();
			fail(signal?.reason);
		};
		const timer = longTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			done();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

/**
 * A clock whose sleeps return at once and move its time on by what they slept: a dry run and a flow test
 * walk a `wait` without waiting, and what the node reports it waited is still the duration it names.
 */
export function instantClock(start = Date.now()): Clock {
	let now = start;
	return {
		now: () => now,
		async sleep(ms, signal) {
			if (signal?.aborted) throw signal.reason;
			now += Math.max(0, ms);
		},
	};
}
