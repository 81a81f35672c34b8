/**
 * A span's context as the W3C `traceparent` text, to keep in a journal entry or hand to another worker
 * with a map item, and back. Written here rather than through the API's propagator, which is a no-op
 * until an SDK registers one: a journal must hold the context whether or not this process exports.
 *
 *   00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01   (version, trace id, span id, flags)
 */
import { isSpanContextValid, type SpanContext, TraceFlags } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The context as `traceparent`, or undefined for the invalid context a no-op tracer gives. */
export function formatTraceparent(context: SpanContext): string | undefined {
	if (!isSpanContextValid(context)) return undefined;
	const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
	return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** A `traceparent` read back as a remote span context; undefined for anything else. */
export function parseTraceparent(text: unknown): SpanContext | undefined {
	if (typeof text !== "string") return undefined;
	const m = TRACEPARENT.exec(text.trim());
	if (!m) return undefined;
	const context: SpanContext = {
		traceId: m[1] as string,
		spanId: m[2] as string,
		traceFlags: Number.parseInt(m[3] as string, 16) & TraceFlags.SAMPLED,
		isRemote: true,
	};
	return isSpanContextValid(context) ? context : undefined;
}

/**
 * The caller's trace context handed to a process in the environment, as OpenTelemetry's proposal for
 * environment carriers names it (`TRACEPARENT`, the way a CI job or a script wraps `pi-flows run` in its
 * own span); anything that is not a well-formed `traceparent` is no context at all.
 */
export function traceparentFromEnv(env: NodeJS.ProcessEnv): string | undefined {
	const context = parseTraceparent(env.TRACEPARENT);
	return context ? formatTraceparent(context) : undefined;
}
