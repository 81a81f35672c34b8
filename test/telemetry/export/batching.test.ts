/**
 * How spans reach the exporter: a large map makes thousands of spans within a second, and none may be
 * lost while an export is under way (the SDK's own queue of 2,048 dropped them); batches are large
 * without message content and the SDK's size with it.
 */
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { exportingProvider } from "../../../src/telemetry/export/sdk.ts";

/** An exporter that takes `ms` to answer each batch, recording the batches' sizes. */
function slowExporter(ms: number): SpanExporter & { batches: number[] } {
	const batches: number[] = [];
	return {
		batches,
		export(spans: ReadableSpan[], done) {
			batches.push(spans.length);
			setTimeout(() => done({ code: 0 }), ms);
		},
		shutdown: async () => {},
		forceFlush: async () => {},
	};
}

async function spans(content: boolean, n: number): Promise<number[]> {
	const exporter = slowExporter(50);
	const provider = exportingProvider(exporter, { content });
	const tracer = provider.getTracer("test");
	for (let i = 0; i < n; i++) {
		tracer.startSpan(`invoke_agent scout`, { attributes: { "pi_flows.visit": `work[${i}]/act` } }).end();
		// Let a full batch's export start, so later spans arrive while it is under way.
		if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
	}
	await provider.forceFlush();
	await provider.shutdown();
	return exporter.batches;
}

describe("span batching", () => {
	it("keeps every span of 6,000 made while exports are under way, 2,048 at most a batch", async () => {
		const batches = await spans(false, 6000);
		expect(batches.reduce((a, b) => a + b, 0)).toBe(6000);
		expect(Math.max(...batches)).toBe(2048);
	});

	it("with message content, keeps every span in batches of at most 512", async () => {
		const batches = await spans(true, 3000);
		expect(batches.reduce((a, b) => a + b, 0)).toBe(3000);
		expect(Math.max(...batches)).toBe(512);
	});
});
