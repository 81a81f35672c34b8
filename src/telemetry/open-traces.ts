/**
 * The traces still open in this process, apart from the tracer so that what ends them at a quit (the
 * export door, loaded by every command that runs flows) loads nothing of the OpenTelemetry API.
 */

/** How an open trace is ended from outside. */
export interface Closable {
	end(how?: { ok: boolean; error?: string; errorKind?: string }): void;
}

const open = new Set<Closable>();

/** Keeps a trace in the set until it ends. */
export function opened(trace: Closable): () => void {
	open.add(trace);
	return () => open.delete(trace);
}

/** Ends every trace still open in this process (the second Ctrl-C quits without waiting for the run). */
export function endOpenTraces(reason: string): void {
	for (const t of [...open]) t.end({ ok: false, error: reason, errorKind: "stopped" });
}
