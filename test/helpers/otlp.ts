/**
 * An OTLP/HTTP trace receiver inside a test: `POST /v1/traces` on 127.0.0.1, decoding what the official
 * exporter sends: protobuf with OpenTelemetry's own `.proto` definitions (test/fixtures/otlp-proto, loaded
 * with protobufjs) and OTLP/JSON. Every span lands in one flat list with its resource, ids in hex, attribute
 * values as plain JavaScript values, so a test reads the tree as a backend (Jaeger, Langfuse) would.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";

const PROTO_DIR = join(import.meta.dirname, "../fixtures/otlp-proto");

/** A span as received. */
export interface ReceivedSpan {
	traceId: string;
	spanId: string;
	parentSpanId: string;
	name: string;
	/** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
	kind: number;
	startMs: number;
	endMs: number;
	attributes: Record<string, unknown>;
	events: { name: string; attributes: Record<string, unknown> }[];
	links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
	/** 0 unset, 1 ok, 2 error. */
	status: { code: number; message: string };
	resource: Record<string, unknown>;
	scope: string;
	/** How it arrived. */
	encoding: "protobuf" | "json";
}

export interface Receiver {
	/** The base URL to put in `OTEL_EXPORTER_OTLP_ENDPOINT`. */
	url: string;
	spans: ReceivedSpan[];
	/** Every request's content type, path and headers, in order. */
	requests: { contentType: string; path: string; headers: Record<string, string | string[] | undefined> }[];
	/** Resolves once `test` holds on the spans received (polled as they arrive), or rejects after `ms`. */
	until(test: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
	close(): Promise<void>;
}

let requestType: protobuf.Type | undefined;

function exportRequestType(): protobuf.Type {
	if (requestType) return requestType;
	const root = new protobuf.Root();
	root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
	root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
	requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
	return requestType;
}

type Json = Record<string, unknown>;

const hex = (v: unknown): string =>
	v instanceof Uint8Array ? Buffer.from(v).toString("hex") : typeof v === "string" ? v.toLowerCase() : "";

/** An OTLP `AnyValue` as a plain value (the same code reads the protobuf object and the JSON). */
function anyValue(v: Json | undefined): unknown {
	if (!v) return undefined;
	if ("stringValue" in v) return v.stringValue;
	if ("boolValue" in v) return v.boolValue;
	if ("intValue" in v) return Number(v.intValue);
	if ("doubleValue" in v) return Number(v.doubleValue);
	if ("arrayValue" in v) return (((v.arrayValue as Json).values as Json[] | undefined) ?? []).map(anyValue);
	if ("kvlistValue" in v) return attributes((v.kvlistValue as Json).values as Json[]);
	if ("bytesValue" in v) return hex(v.bytesValue);
	return undefined;
}

function attributes(list: Json[] | undefined): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const kv of list ?? []) out[String(kv.key)] = anyValue(kv.value as Json);
	return out;
}

const ms = (nanos: unknown) => Number(BigInt(String(nanos ?? "0")) / 1_000_000n);

function spansOf(request: Json, encoding: ReceivedSpan["encoding"]): ReceivedSpan[] {
	const out: ReceivedSpan[] = [];
	for (const rs of (request.resourceSpans as Json[] | undefined) ?? []) {
		const resource = attributes(((rs.resource as Json | undefined)?.attributes as Json[]) ?? []);
		for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
			const scope = String((ss.scope as Json | undefined)?.name ?? "");
			for (const s of (ss.spans as Json[] | undefined) ?? []) {
				const status = (s.status as Json | undefined) ?? {};
				out.push({
					traceId: hex(s.traceId),
					spanId: hex(s.spanId),
					parentSpanId: hex(s.parentSpanId),
					name: String(s.name),
					kind: Number(s.kind ?? 0),
					startMs: ms(s.startTimeUnixNano),
					endMs: ms(s.endTimeUnixNano),
					attributes: attributes(s.attributes as Json[]),
					events: ((s.events as Json[] | undefined) ?? []).map((e) => ({
						name: String(e.name),
						attributes: attributes(e.attributes as Json[]),
					})),
					links: ((s.links as Json[] | undefined) ?? []).map((l) => ({
						traceId: hex(l.traceId),
						spanId: hex(l.spanId),
						attributes: attributes(l.attributes as Json[]),
					})),
					status: { code: Number(status.code ?? 0), message: String(status.message ?? "") },
					resource,
					scope,
					encoding,
				});
			}
		}
	}
	return out;
}

async function body(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const c of req) chunks.push(c as Buffer);
	const raw = Buffer.concat(chunks);
	return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
	const spans: ReceivedSpan[] = [];
	const requests: Receiver["requests"] = [];
	const waiters = new Set<() => void>();
	const server = createServer(async (req, res) => {
		const contentType = String(req.headers["content-type"] ?? "");
		requests.push({ contentType, path: req.url ?? "", headers: req.headers });
		const bytes = await body(req);
		try {
			if (req.method !== "POST" || req.url !== "/v1/traces") throw new Error(`unexpected ${req.method} ${req.url}`);
			if (contentType.startsWith("application/x-protobuf")) {
				const type = exportRequestType();
				const decoded = type.toObject(type.decode(bytes), { longs: String, enums: Number, defaults: false }) as Json;
				spans.push(...spansOf(decoded, "protobuf"));
				res.writeHead(200, { "content-type": "application/x-protobuf" });
				res.end();
			} else if (contentType.startsWith("application/json")) {
				spans.push(...spansOf(JSON.parse(bytes.toString("utf8")) as Json, "json"));
				res.writeHead(200, { "content-type": "application/json" });
				res.end("{}");
			} else throw new Error(`unexpected content type ${contentType}`);
		} catch (error) {
			res.writeHead(400, { "content-type": "text/plain" });
			res.end(String(error));
		}
		for (const w of [...waiters]) w();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		spans,
		requests,
		until(test, timeout = 30_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					if (!test(spans)) return;
					clearTimeout(timer);
					waiters.delete(check);
					resolve(spans);
				};
				const timer = setTimeout(() => {
					waiters.delete(check);
					reject(
						new Error(`the receiver did not get the spans awaited; it has: ${spans.map((s) => s.name).join(", ")}`),
					);
				}, timeout);
				waiters.add(check);
				check();
			});
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The spans of one trace as a tree, for reading a failure: `name [attr=…]` indented under its parent. */
export function drawTree(spans: readonly ReceivedSpan[]): string {
	const byParent = new Map<string, ReceivedSpan[]>();
	const ids = new Set(spans.map((s) => s.spanId));
	for (const s of spans) {
		const key = ids.has(s.parentSpanId) ? s.parentSpanId : "";
		byParent.set(key, [...(byParent.get(key) ?? []), s]);
	}
	const lines: string[] = [];
	const walk = (parent: string, depth: number) => {
		for (const s of (byParent.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs)) {
			lines.push(`${"  ".repeat(depth)}${s.name} (${s.attributes["pi_flows.visit.path"] ?? ""})`);
			walk(s.spanId, depth + 1);
		}
	};
	walk("", 0);
	return lines.join("\n");
}
