/**
 * Why a turn was called off, read from the signal's reason rather than from any message text: a deadline
 * (`TimeoutError`, as `AbortSignal.timeout` gives), a person stopping the run, a sibling's failure under
 * `failFast`, or the caller's plain abort. Every layer that refuses or cuts a turn words it the same way.
 */
import { formatDuration } from "./duration.ts";
import { longTimeout } from "./timer.ts";
import type { Failure } from "./failure.ts";

/** How a called-off turn fails: a deadline, a person's stop, or a plain abort (a fail-fast cut included). */
export type AbortFailure = Failure<"timeout" | "stopped" | "aborted">;

const STOPPED = "StoppedError";
const CANCELLED = "CancelledError";

/**
 * A reason that reads as a deadline with its bound, so a flow that bounds an attempt with a signal says
 * `timed out after 2m` like a turn cut by `timeoutMs` does.
 */
export function timeoutReason(ms: number): DOMException {
	return new DOMException(`timed out after ${formatDuration(ms)}`, "TimeoutError");
}

/** A reason for a turn a person stopped: it fails `stopped`, which a journal tells apart from a deadline. */
export function stopReason(): DOMException {
	return new DOMException("stopped", STOPPED);
}

/**
 * A reason for work called off because something else already failed (`failFast`). A turn cut so fails
 * as `aborted` and the words say why; the flow evaluator names its own fail-fast cut `cancelled`.
 */
export function cancelReason(why: string): DOMException {
	return new DOMException(`cancelled: ${why}`, CANCELLED);
}

/** A signal that fires after `ms` with {@link timeoutReason}, or earlier with its parent's reason. */
export function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; clear(): void } {
	const controller = new AbortController();
	// A forgotten deadline must not keep the process alive; a long one must not fire at once.
	const timer = longTimeout(() => controller.abort(timeoutReason(ms)), ms, { unref: true });
	const signal = parent ? AbortSignal.any([parent, controller.signal]) : controller.signal;
	return { signal, clear: () => timer.clear() };
}

/** The failure of a turn refused or cut by this (aborted) signal. */
export function abortFailure(signal: AbortSignal): AbortFailure {
	const reason: unknown = signal.reason;
	const named = typeof reason === "object" && reason !== null && "name" in reason ? reason : undefined;
	const name = named ? String(named.name) : "";
	const message = named && "message" in named ? String(named.message) : "";
	if (name === "TimeoutError")
		return { kind: "timeout", message: message.startsWith("timed out") ? message : "timed out" };
	if (name === STOPPED) return { kind: "stopped", message: "stopped" };
	if (name === CANCELLED) return { kind: "aborted", message: message || "cancelled" };
	return { kind: "aborted", message: "aborted" };
}
