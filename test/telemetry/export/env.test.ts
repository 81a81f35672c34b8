/**
 * What the standard OpenTelemetry environment asks of pi-flows: an exporter only with an endpoint, over
 * HTTP as protobuf (the default) or JSON, nothing with the SDK disabled or another exporter named, a
 * plain reason for a protocol it does not speak; the sampler `OTEL_TRACES_SAMPLER` names, with its ratio.
 */
import { describe, expect, it } from "vitest";
import { startTelemetry, wantedProtocol } from "../../../src/telemetry/export/index.ts";
import { samplerFromEnv } from "../../../src/telemetry/export/sampler.ts";

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

describe("the environment asks for an exporter", () => {
	it("only with an endpoint, and as the protocol it names", () => {
		expect(wantedProtocol({})).toEqual({ ok: false });
		expect(wantedProtocol(endpoint)).toEqual({ ok: true, protocol: "http/protobuf" });
		expect(wantedProtocol({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://h:4318/v1/traces" })).toEqual({
			ok: true,
			protocol: "http/protobuf",
		});
		expect(wantedProtocol({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual({
			ok: true,
			protocol: "http/json",
		});
		// The traces-specific protocol wins over the general one.
		expect(
			wantedProtocol({
				...endpoint,
				OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
				OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
			}),
		).toEqual({ ok: true, protocol: "http/json" });
		expect(wantedProtocol({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toEqual({ ok: false });
		expect(wantedProtocol({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toEqual({ ok: false });
		const grpc = wantedProtocol({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
		expect(grpc.ok).toBe(false);
		expect(!grpc.ok && grpc.why).toMatch(/`grpc` is not one pi-flows exports/);
	});

	it("says why nothing is sent for a protocol it does not speak, and starts nothing", async () => {
		const notes: string[] = [];
		expect(await startTelemetry({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, (l) => notes.push(l))).toBe(
			undefined,
		);
		expect(notes).toHaveLength(1);
		expect(await startTelemetry({}, (l) => notes.push(l))).toBe(undefined);
		expect(notes).toHaveLength(1);
	});
});

describe("OTEL_TRACES_SAMPLER", () => {
	it("names the sampler, parent-based always-on by default", () => {
		const name = (env: Record<string, string>) => samplerFromEnv(env).sampler.toString();
		expect(name({})).toMatch(/^ParentBased\{root=AlwaysOnSampler/);
		expect(name({ OTEL_TRACES_SAMPLER: "always_off" })).toBe("AlwaysOffSampler");
		expect(name({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" })).toBe(
			"TraceIdRatioBased{0.25}",
		);
		expect(name({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })).toMatch(
			/^ParentBased\{root=TraceIdRatioBased\{0.5\}/,
		);
		const bad = samplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "two" });
		expect(bad.sampler.toString()).toBe("TraceIdRatioBased{1}");
		expect(bad.note).toMatch(/not a ratio/);
		expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "jaeger_remote" }).note).toMatch(/not one pi-flows knows/);
	});
});
