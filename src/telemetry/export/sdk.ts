/**
 * The SDK, registered from the environment: a trace provider with the sampler `OTEL_TRACES_SAMPLER`
 * names, a resource of `service.name` (default `pi-flows`), `service.version`, the process and host,
 * overridden by `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`, and a batching processor feeding the
 * official OTLP/HTTP exporter for the protocol asked (protobuf or JSON), which reads its endpoint, headers,
 * timeout and compression from the environment itself. Loaded only through `./index.ts`, only when asked.
 */
import { hostname } from "node:os";
import { type DiagLogger, DiagLogLevel, diag, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
	defaultResource,
	detectResources,
	envDetector,
	type Resource,
	resourceFromAttributes,
} from "@opentelemetry/resources";
import { BatchSpanProcessor, type Sampler, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { PACKAGE_ROOT } from "../../package/index.ts";
import { redactText, rememberSecret } from "../../secrets/index.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Protocol, Telemetry } from "./index.ts";
import { samplerFromEnv } from "./sampler.ts";
import { captureWanted } from "../content.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Registers the provider globally and returns how to flush and stop it. */
export function registerSdk(env: Env, protocol: Protocol, note: (line: string) => void): Telemetry {
	// Header values carry credentials (a Langfuse key, a vendor token): nothing pi-flows writes may show them.
	for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"])
		for (const pair of (env[name] ?? "").split(",")) {
			const value = pair.slice(pair.indexOf("=") + 1).trim();
			if (pair.includes("=") && value) {
				rememberSecret(value);
				rememberSecret(safeDecode(value));
			}
		}
	quietDiag(env, note);
	const { sampler, note: samplerNote } = samplerFromEnv(env);
	if (samplerNote) note(samplerNote);
	const resource = defaultResource()
		.merge(
			resourceFromAttributes({
				"service.name": "pi-flows",
				"service.version": version(),
				"process.pid": process.pid,
				"host.name": hostname(),
			}),
		)
		.merge(detectResources({ detectors: [envDetector] }));
	const exporter = protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
	const provider = exportingProvider(exporter, { resource, sampler, content: captureWanted(env) });
	trace.setGlobalTracerProvider(provider);
	// An export that does not finish in time is given up: said once, and nothing later about it.
	const bounded = async (work: Promise<void>, timeoutMs: number): Promise<boolean> => {
		let timer: NodeJS.Timeout | undefined;
		let late = false;
		const gaveUp = new Promise<boolean>((resolve) => {
			timer = setTimeout(() => {
				late = true;
				note(`the trace export did not finish within ${timeoutMs} ms; what was left is dropped`);
				resolve(false);
			}, timeoutMs);
			timer.unref();
		});
		try {
			return await Promise.race([
				work.then(
					() => true,
					(error: unknown) => {
						if (!late) note(`the trace export failed: ${errorLine(error)}`);
						return false;
					},
				),
				gaveUp,
			]);
		} finally {
			clearTimeout(timer);
		}
	};
	return {
		protocol,
		flush: async () => {
			await bounded(provider.forceFlush(), 10_000);
		},
		shutdown: async (timeoutMs = 10_000) => {
			const done = await bounded(provider.shutdown(), timeoutMs);
			trace.disable();
			return done;
		},
	};
}

/**
 * How spans are batched. The SDK's queue holds 2,048 spans and drops what arrives while it is full and an
 * export is under way: a 1,000-item map makes 2,000 spans in about a second, so a larger map lost spans.
 * The queue holds 16,384 (a few MiB of span objects), and a batch is 2,048 spans, a quarter of the HTTP
 * requests of the SDK's 512 (13% less of the trace's CPU, measured on 2,000 visit spans); with message
 * content captured a span can hold kilobytes, and a batch stays at the SDK's 512 so a request stays within
 * what receivers take.
 */
export const BATCHING = {
	maxQueueSize: 16_384,
	maxExportBatchSize: 2_048,
	withContent: { maxQueueSize: 16_384, maxExportBatchSize: 512 },
} as const;

/**
 * The provider every exporting process uses (and bench/trace.ts measures): spans batched by
 * {@link BATCHING} (every 5 s, when a batch is full, and at a flush) into `exporter`.
 */
export function exportingProvider(
	exporter: SpanExporter,
	options: { resource?: Resource; sampler?: Sampler; content?: boolean } = {},
): TracerProvider {
	const { content, ...rest } = options;
	const { maxQueueSize, maxExportBatchSize } = content ? BATCHING.withContent : BATCHING;
	return new TracerProvider({
		...rest,
		spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize, maxExportBatchSize })],
	});
}

/**
 * The SDK reports export failures through `diag`, which says nothing unless a logger is set: a person who
 * asked for traces hears, once per kind of message, why they did not arrive (at `OTEL_LOG_LEVEL`, default
 * warnings and errors), redacted.
 */
function quietDiag(env: Env, note: (line: string) => void): void {
	const said = new Set<string>();
	const say = (message: string, ...args: unknown[]) => {
		const line = redactText([message, ...args.map(errorLine)].join(" ")).slice(0, 300);
		if (said.has(line) || said.size > 20) return;
		said.add(line);
		note(`telemetry: ${line}`);
	};
	const silent = () => {};
	const logger: DiagLogger = { error: say, warn: say, info: silent, debug: silent, verbose: silent };
	const level = (env.OTEL_LOG_LEVEL ?? "warn").trim().toUpperCase();
	const levels: Record<string, DiagLogLevel> = {
		NONE: DiagLogLevel.NONE,
		ERROR: DiagLogLevel.ERROR,
		WARN: DiagLogLevel.WARN,
		INFO: DiagLogLevel.WARN,
		DEBUG: DiagLogLevel.WARN,
		VERBOSE: DiagLogLevel.WARN,
		ALL: DiagLogLevel.WARN,
	};
	diag.setLogger(logger, { logLevel: levels[level] ?? DiagLogLevel.WARN, suppressOverrideMessage: true });
}

function errorLine(value: unknown): string {
	if (value instanceof Error) return value.message;
	return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

function version(): string {
	try {
		return (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: string }).version ?? "";
	} catch {
		return "";
	}
}
