/**
 * How many requests a run sends to one provider at once, learnt as TCP learns a window (AIMD): a rate
 * limit halves the window (once per round: answers to requests sent before the cut do not cut again),
 * and each answer that flows grows it by 1/window, so it climbs back one request per round trip. A map's
 * `concurrency:` still bounds turns; the gate bounds requests, which is what the provider counts.
 *
 *   const gate = createGate();
 *   const pass = await gate.enter(signal);   // waits for a free place
 *   ... request ...; pass.leave("ok" | "limited" | "failed");
 */

/** How a request ended, as the window cares. */
export type GateOutcome = "ok" | "limited" | "failed";

/** A place taken in the gate. */
export interface GatePass {
	/** Frees the place; `limited` shrinks the window, `ok` grows it. Idempotent. */
	leave(outcome: GateOutcome): void;
}

/** One provider's window. */
export interface Gate {
	/** Waits for a place; rejects with the signal's reason when it aborts first. */
	enter(signal?: AbortSignal): Promise<GatePass>;
	/** The current window (whole requests). */
	limit(): number;
	/** Requests in flight. */
	inFlight(): number;
	/** Times the window was cut. */
	cuts(): number;
}

/** Options of a gate. */
export interface GateOptions {
	/** The window before the first rate limit. Default 64. */
	initial?: number;
	/** The largest window. Default 64. */
	max?: number;
}

/** A new gate. */
export function createGate(options: GateOptions = {}): Gate {
	const max = options.max ?? 64;
	let window = Math.min(max, options.initial ?? max);
	let active = 0;
	let epoch = 0;
	let cuts = 0;
	const waiting: { resolve: (p: GatePass) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

	const admit = () => {
		while (waiting.length > 0 && active < Math.floor(window)) {
			const w = waiting.shift();
			if (!w) break;
			if (w.onAbort) w.signal?.removeEventListener("abort", w.onAbort);
			w.resolve(pass());
		}
	};

	const pass = (): GatePass => {
		active++;
		const startedIn = epoch;
		let left = false;
		return {
			leave(outcome) {
				if (left) return;
				left = true;
				active--;
				if (outcome === "limited") {
					// One cut per round: requests sent before the last cut were sent to a window already gone.
					if (startedIn === epoch) {
						window = Math.max(1, Math.floor(Math.min(window, active + 1) / 2));
						epoch++;
						cuts++;
					}
				} else if (outcome === "ok") window = Math.min(max, window + 1 / Math.max(1, window));
				admit();
			},
		};
	};

	return {
		enter(signal) {
			if (signal?.aborted) return Promise.reject(signal.reason);
			if (active < Math.floor(window) && waiting.length === 0) return Promise.resolve(pass());
			return new Promise<GatePass>((resolve, reject) => {
				const w: (typeof waiting)[number] = { resolve, ...(signal ? { signal } : {}) };
				if (signal) {
					w.onAbort = () => {
						const i = waiting.indexOf(w);
						if (i >= 0) waiting.splice(i, 1);
						reject(signal.reason);
					};
					signal.addEventListener("abort", w.onAbort, { once: true });
				}
				waiting.push(w);
			});
		},
		limit: () => Math.floor(window),
		inFlight: () => active,
		cuts: () => cuts,
	};
}
