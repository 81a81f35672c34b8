/**
 * Usage is what pi counted, never an estimate of ours: a turn's usage is the delta of the session's
 * counters across the turn, and a field a provider does not report stays 0. Time is measured here, with
 * `performance.now()`, because pi does not time turns.
 */

/** Tokens, cost and time spent by one turn, one node, or a whole run. */
export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** input + output + cacheRead + cacheWrite, as pi totals it. */
	totalTokens: number;
	/** In the provider's currency (USD for the known ones); 0 when the provider reports none. */
	cost: number;
	/** Model requests answered (assistant messages). */
	requests: number;
	/** Tool calls the model made. */
	toolCalls: number;
	/** Wall-clock milliseconds. */
	ms: number;
	/**
	 * Requests sent again after a transport fault (429, 529, 5xx, a cut or stalled stream). Their billed
	 * tokens are in the counters above; absent means none.
	 */
	retries?: number;
	/** Milliseconds spent waiting before those retries. */
	retryWaitMs?: number;
}

/** A usage with every counter at zero. */
export function emptyUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: 0,
		requests: 0,
		toolCalls: 0,
		ms: 0,
	};
}

/** The sum of several usages; `ms` is summed too (busy time), so callers that want wall time set it after. */
export function addUsage(...parts: Usage[]): Usage {
	const sum = emptyUsage();
	for (const u of parts) {
		addCounters(sum, u);
		sum.ms += u.ms;
	}
	return sum;
}

/**
 * Adds `u`'s counters into `total` in place, leaving its `ms` as it is: a running total kept privately (a
 * visit's, a run's), so a turn's end makes no new usage objects, and a turn's own time is no share of a
 * total whose time is wall time.
 */
export function addCounters(total: Usage, u: Usage): void {
	total.input += u.input;
	total.output += u.output;
	total.cacheRead += u.cacheRead;
	total.cacheWrite += u.cacheWrite;
	total.totalTokens += u.totalTokens;
	total.cost += u.cost;
	total.requests += u.requests;
	total.toolCalls += u.toolCalls;
	if (u.retries) total.retries = (total.retries ?? 0) + u.retries;
	if (u.retryWaitMs) total.retryWaitMs = (total.retryWaitMs ?? 0) + u.retryWaitMs;
}

/** `12.3k` for progress lines: exact below 1,000, one decimal above. */
export function formatTokens(n: number): string {
	if (n < 1000) return String(n);
	if (n < 1_000_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
	return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** One line: `↑in ↓out · $cost · 1.2s`, the figures a person compares across runs. */
export function formatUsage(u: Usage): string {
	const inTokens = u.input + u.cacheRead + u.cacheWrite;
	const cost = u.cost > 0 ? ` · $${u.cost.toFixed(4)}` : "";
	const retries = u.retries ? ` · ↻${u.retries}` : "";
	return `↑${formatTokens(inTokens)} ↓${formatTokens(u.output)}${cost} · ${(u.ms / 1000).toFixed(1)}s${retries}`;
}
