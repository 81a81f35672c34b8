/**
 * Runs as OpenTelemetry traces in the GenAI semantic conventions (docs/observability.md). This door is
 * the library's half and needs `@opentelemetry/api` alone: spans are made through the global API, free
 * when no SDK is registered. Registering the SDK and its OTLP exporter from the standard environment is
 * the CLI's and the extension's business (`./export/`), loaded only when the environment asks for it.
 */
export { captureWanted } from "./content.ts";
export { type ReuseFact, reuseFactOf } from "./reuse.ts";
export { formatTraceparent, parseTraceparent, traceparentFromEnv } from "./traceparent.ts";
export { endOpenTraces } from "./open-traces.ts";
export {
	type LifeTrace,
	type RunTrace,
	type TraceBound,
	type TraceEnd,
	type TraceRunOptions,
	traceRun,
} from "./trace-run.ts";
