/**
 * The one place a trace reads whether a visit was reused from an earlier run rather than run: the `reuse`
 * work (a visit identity, and visits whose identity matches an earlier end taking that end) records the
 * fact on the visit's end. Until it lands nothing carries it and this reads nothing; when it does, the
 * visit's span says `pi_flows.visit.reused` (and where from) with no change elsewhere in the tracer. A
 * reused visit sends no request, so it gets no `chat` span by construction.
 *
 *   { type: "node_end", path: "scan", …, reused: { from: "2026-12-01-scan-a1b2/scan" } }
 *     → pi_flows.visit.reused = true, pi_flows.visit.reused_from = "2026-12-01-scan-a1b2/scan"
 */

/** A reuse fact as a visit's end may carry it: `true`, or where the reused end came from. */
export interface ReuseFact {
	from?: string;
}

/** The reuse fact of a visit's end (a `node_end` event or a journal `visit_end`), if it carries one. */
export function reuseFactOf(end: object): ReuseFact | undefined {
	const fact = (end as { reused?: unknown }).reused;
	if (fact === true) return {};
	if (fact !== null && typeof fact === "object") {
		const from = (fact as { from?: unknown }).from;
		return typeof from === "string" ? { from } : {};
	}
	return undefined;
}
