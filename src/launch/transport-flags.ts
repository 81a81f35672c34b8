/**
 * The launch flags of transport retries, read the same way by every surface that starts a run (the
 * `pi-flows` commands and the extension's `/run`): `--retries N` tries per model request, the first
 * included, and `--retry-wait D` for all of one request's waits together. A flow's `transport:` goes
 * over these.
 *
 *   readTransportFlags("3", "30s") → { ok: true, value: { attempts: 3, totalWaitMs: 30000 } }
 *   readTransportFlags("0")        → { ok: false, error: "--retries takes a whole number of tries above 0, not `0`" }
 */
import type { TransportPolicy } from "../runtime/index.ts";
import { parseDuration } from "../language/syntax/index.ts";

/** The flags' values as typed (undefined: not given); no value given is no override. */
export function readTransportFlags(
	retries: string | undefined,
	wait: string | undefined,
): { ok: true; value?: Partial<TransportPolicy> } | { ok: false; error: string } {
	const out: Partial<TransportPolicy> = {};
	if (retries !== undefined) {
		const n = Number(retries);
		if (!Number.isInteger(n) || n < 1)
			return { ok: false, error: `--retries takes a whole number of tries above 0, not \`${retries}\`` };
		out.attempts = n;
	}
	if (wait !== undefined) {
		const ms = parseDuration(wait);
		if (ms === undefined) return { ok: false, error: `--retry-wait takes a duration like 5m, not \`${wait}\`` };
		out.totalWaitMs = ms;
	}
	return { ok: true, ...(Object.keys(out).length ? { value: out } : {}) };
}
