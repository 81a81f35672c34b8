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

/** One turn as {@link watchTurn} watches it. */
export interface TurnWatch {
	/** A sign of life: the idle clock starts again from now. */
	touch(): void;
	/** Stops watching; safe to call any number of times. */
	clear(): void;
}

/**
 * One watched turn, and its {@link TurnWatch}: one object a turn, the set's entry and the handle alike,
 * since every turn of a run makes one.
 */
class Watched implements TurnWatch {
	/** When the turn times out (ms on `performance.now()`'s clock); Infinity: never. */
	readonly deadline: number;
	readonly idleMs: number;
	last: number;
	readonly timedOut: () => void;
	readonly idled: () => void;
	constructor(deadline: number, idleMs: number, now: number, timedOut: () => void, idled: () => void) {
		this.deadline = deadline;
		this.idleMs = idleMs;
		this.last = now;
		this.timedOut = timedOut;
		this.idled = idled;
	}
	touch(): void {
		this.last = performance.now();
	}
	clear(): void {
		if (!watched.delete(this) || watched.size > 0 || !armed) return;
		// Nothing left to watch: no timer keeps the process alive for a turn that ended.
		armed.handle.unref();
		armed.held = false;
	}
}

/**
 * The turns being watched, and one timer for all of them, armed for the earliest moment any of them may
 * time out or go idle. A timer or two per turn, armed and cleared around every turn, was a visible share of
 * a short turn's work; a turn now adds itself to a set and, unless it is due before the others, arms nothing.
 */
const watched = new Set<Watched>();
/**
 * The timer, while one is set. With no turn left to watch it is not cleared but let go of (`unref`, `held:
 * false`): it keeps no process alive, sweeps nothing if it fires, and the next turn takes it back (`ref`)
 * instead of setting a timer of its own. Clearing it and setting another around every turn of a busy map
 * was a timer list's insertion and removal a turn.
 */
let armed: { at: number; handle: ReturnType<typeof setTimeout>; held: boolean } | undefined;

function dueAt(w: Watched): number {
	return Math.min(w.deadline, w.last + w.idleMs);
}

function arm(at: number): void {
	if (armed && armed.at <= at) {
		if (!armed.held) {
			armed.handle.ref();
			armed.held = true;
		}
		return;
	}
	if (armed) clearTimeout(armed.handle);
	const handle = setTimeout(sweep, Math.min(Math.max(0, at - performance.now()), LONGEST_TIMER_MS));
	armed = { at, handle, held: true };
}

function sweep(): void {
	armed = undefined;
	const now = performance.now();
	let next = Number.POSITIVE_INFINITY;
	for (const w of watched) {
		if (now >= w.deadline) {
			watched.delete(w);
			w.timedOut();
		} else if (now - w.last >= w.idleMs) {
			watched.delete(w);
			w.idled();
		} else next = Math.min(next, dueAt(w));
	}
	if (Number.isFinite(next)) arm(next);
}

/**
 * Watches one turn: `timedOut` once `timeoutMs` have passed, or `idled` once `idleMs` have passed since its
 * last {@link TurnWatch.touch}, whichever comes first, and then nothing more. Either may be absent. A
 * duration of any length is honoured (the timer waits in chunks of at most {@link LONGEST_TIMER_MS}).
 */
export function watchTurn(o: {
	timeoutMs?: number;
	idleMs?: number;
	timedOut: () => void;
	idled: () => void;
}): TurnWatch {
	const now = performance.now();
	const w = new Watched(
		o.timeoutMs === undefined ? Number.POSITIVE_INFINITY : now + o.timeoutMs,
		o.idleMs ?? Number.POSITIVE_INFINITY,
		now,
		o.timedOut,
		o.idled,
	);
	const due = dueAt(w);
	if (Number.isFinite(due)) {
		watched.add(w);
		arm(due);
	}
	return w;
}
