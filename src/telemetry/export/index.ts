/**
 * The CLI's and the extension's half of tracing: when the standard OpenTelemetry environment asks for an
 * OTLP exporter (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), the SDK is loaded
 * and registered as the global tracer provider; otherwise nothing of it is ever loaded (this door is a few
 * lines, the SDK is `./sdk.ts`, a chunk of its own). Whoever started it flushes before the process ends.
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 pi-flows run review "…"   → spans to :4318/v1/traces
 */
import { redactError } from "../../secrets/index.ts";
// The open traces' own file, not the telemetry door: ending them must not load the OpenTelemetry API.
import { endOpenTraces } from "../open-traces.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The exporter the environment asks for: OTLP over HTTP, as protobuf or as JSON. */
export type Protocol = "http/protobuf" | "http/json";

/** The registered SDK, as its starter holds it. */
export interface Telemetry {
	readonly protocol: Protocol;
	/** Exports what has ended so far (a run's end in a long-lived pi). */
	flush(): Promise<void>;
	/**
	 * Exports everything and stops the provider, in at most `timeoutMs` (default 10 s); false when it gave up
	 * (the collector did not answer): an export still pending may then keep the process alive, so a
	 * command ends its process rather than wait for it.
	 */
	shutdown(timeoutMs?: number): Promise<boolean>;
}

/** The OTLP protocol asked for, or why the environment asks for nothing this build can export. */
export function wantedProtocol(env: Env): { ok: true; protocol: Protocol } | { ok: false; why?: string } {
	if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return { ok: false };
	if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return { ok: false };
	const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((x) => x.trim().toLowerCase());
	if (!exporters.includes("otlp")) return { ok: false };
	const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf")
		.trim()
		.toLowerCase();
	if (protocol === "http/protobuf" || protocol === "http/json") return { ok: true, protocol };
	return {
		ok: false,
		why: `OTLP protocol \`${protocol}\` is not one pi-flows exports (it speaks http/protobuf and http/json); no trace is sent`,
	};
}

let started: Promise<Telemetry | undefined> | undefined;

/**
 * Registers the SDK once per process if the environment asks (later calls get the same), else does
 * nothing and loads nothing. `note` hears why tracing stays off when it was asked for, and what the
 * exporter reports going wrong (redacted). Never throws: tracing that cannot start leaves the run as it is.
 */
export function startTelemetry(env: Env, note: (line: string) => void = () => {}): Promise<Telemetry | undefined> {
	const wanted = wantedProtocol(env);
	if (!wanted.ok) {
		if (wanted.why) note(wanted.why);
		return Promise.resolve(undefined);
	}
	started ??= import("./sdk.ts")
		.then((sdk) => sdk.registerSdk(env, wanted.protocol, note))
		.catch((error: unknown) => {
			note(`tracing could not start: ${redactError(error)}`);
			return undefined;
		});
	return started;
}

/** Exports what has ended so far, if the SDK was started. */
export async function flushTelemetry(): Promise<void> {
	await (await started)?.flush();
}

/** Exports everything and stops, if the SDK was started (the end of a CLI command); false when it gave up. */
export async function shutdownTelemetry(timeoutMs?: number): Promise<boolean> {
	const telemetry = await started;
	started = undefined;
	return (await telemetry?.shutdown(timeoutMs)) ?? true;
}

/**
 * The second Ctrl-C: the person will not wait for the run to wind down, so whatever is still open is
 * ended as cut, what ended is exported (within `timeoutMs`), then the process exits with `code`.
 */
export async function quitAfterExport(code: number, timeoutMs = 2000): Promise<never> {
	endOpenTraces("the process quit before the run ended");
	try {
		await shutdownTelemetry(timeoutMs);
	} finally {
		process.exit(code);
	}
}
