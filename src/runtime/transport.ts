/**
 * Transport retries: a request the network or the provider lost (429, 529, 5xx, a reset, a cut or
 * stalled stream) is sent again below the flow, so the turn goes on as if nothing happened and the node's
 * `retry:` (for bad results) is not spent. This file holds the policy and its arithmetic; `src/pi/`
 * applies it to each request pi makes.
 */

/** How hard a request is retried. */
export interface TransportPolicy {
	/** Tries per request, the first included. Default 8. */
	attempts: number;
	/** First backoff; attempt n waits about base × 2^(n-1), with jitter. Default 1000 ms. */
	baseMs: number;
	/** The longest single wait, a provider's `retry-after` included (a longer one gives up). Default 60 s. */
	maxDelayMs: number;
	/** All waits of one request together. Default 5 minutes. */
	totalWaitMs: number;
	/** A stream with no data for this long is abandoned and sent again. Default 2 minutes. */
	stallMs: number;
	/** Adapts the requests in flight per provider to its rate limits (AIMD). Default true. */
	adaptive: boolean;
}

/** Defaults that suit real providers: a rate limit of a minute or two is waited out; a dead one is not. */
export const DEFAULT_TRANSPORT: TransportPolicy = {
	attempts: 8,
	baseMs: 1000,
	maxDelayMs: 60_000,
	totalWaitMs: 5 * 60_000,
	stallMs: 2 * 60_000,
	adaptive: true,
};

/** One retry of one request, as events, the live view and the report show it. */
export interface TransportRetry {
	/** The attempt that failed (1 = the first). */
	attempt: number;
	/** What failed: `429`, `529`, `503`, `cut`, `stall`, `reset`, ... */
	reason: string;
	/** The provider's message. */
	message: string;
	/** The wait before the next attempt. */
	delayMs: number;
	/** The provider's `retry-after`, when it sent one. */
	retryAfterMs?: number;
}

/** A policy with some fields overridden (later wins); undefined fields are ignored. */
export function mergePolicy(...parts: (Partial<TransportPolicy> | undefined)[]): TransportPolicy {
	const out = { ...DEFAULT_TRANSPORT };
	for (const p of parts) {
		if (!p) continue;
		for (const [k, v] of Object.entries(p)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
	}
	return out;
}

/**
 * The wait before attempt `attempt + 1`: the provider's `retry-after` when it gave one (it knows), else
 * exponential with full jitter over its upper half (so a burst of failures does not come back as a
 * burst), at most `maxDelayMs`. `random` is injectable for tests.
 */
export function retryDelay(
	policy: TransportPolicy,
	attempt: number,
	retryAfterMs?: number,
	random: () => number = Math.random,
): number {
	if (retryAfterMs !== undefined && retryAfterMs >= 0)
		return Math.ceil(retryAfterMs + random() * Math.min(250, retryAfterMs * 0.1));
	const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The statuses worth sending again: rate limits, overload, server errors, timeouts. */
export function transientStatus(status: number): boolean {
	return (
		status === 408 ||
		status === 409 ||
		status === 425 ||
		status === 429 ||
		status === 529 ||
		(status >= 500 && status <= 599)
	);
}

/** Statuses that mean "too many at once": they shrink the provider's window. */
export function limitStatus(status: number): boolean {
	return status === 429 || status === 529 || status === 503;
}

/** `retry-after-ms` or `retry-after` (seconds or an HTTP date) in milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null }, now = Date.now()): number | undefined {
	const ms = headers.get("retry-after-ms");
	if (ms && Number.isFinite(Number.parseFloat(ms))) return Math.max(0, Number.parseFloat(ms));
	const value = headers.get("retry-after");
	if (!value) return undefined;
	const seconds = Number.parseFloat(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(value);
	return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}
