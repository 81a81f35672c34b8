/**
 * Timers for any duration pi-flows accepts. Node's `setTimeout` holds at most 2^31-1 ms (about 24.8 days)
 * and fires at once past it (`TimeoutOverflowWarning`), which turned a `25d` timeout into an immediate
 * one. Every deadline here goes through {@link longTimeout}, which waits in chunks, so a library caller's
 * longer value is honoured too; the file formats cap durations at `MAX_DURATION_MS` (24d) besides, because
 * pi's own dialogs take a timeout we cannot chunk.
 */

/** The longest delay one `setTimeout` holds. */
export const LONGEST_TIMER_MS = 2_147_483_647;

/** A pending timer; `clear` is safe to call any number of times. */
export interface LongTimer {
	clear(): void;
}

/**
 * Calls `fn` once `ms` milliseconds have passed, however long that is, in chunks of at most
 * {@link LONGEST_TIMER_MS}. `unref` lets the process exit while it waits (a forgotten deadline must not
 * keep it alive). A non-finite `ms` never fires.
 */
export function longTimeout(fn: () => void, ms: number, options: { unref?: boolean } = {}): LongTimer {
	let handle: ReturnType<typeof setTimeout> | undefined;
	let cleared = false;
	const wait = (rest: number) => {
		if (cleared) return;
		const step = Math.min(Math.max(0, rest), LONGEST_TIMER_MS);
		handle = setTimeout(() => (rest > step ? wait(rest - step) : fn()), step);
		if (options.unref) handle.unref?.();
	};
	if (Number.isFinite(ms)) wait(ms);
	return {
		clear() {
			cleared = true;
			if (handle !== undefined) clearTimeout(handle);
		},
	};
}
