/**
 * Streamable HTTP on 127.0.0.1 only, behind three checks made before the SDK sees a byte: the `Host`
 * header must name this loopback address and port (a DNS-rebinding page's host does not), an `Origin`,
 * when a browser sends one, must be that same address, and every request must carry the server's bearer
 * token. A refusal is a plain HTTP status with one sentence; a request that passes goes to the handler
 * (`server.ts`: the SDK's, serving the 2026-07-28 revision per request and the 2025 era in sessions).
 *
 *   POST /mcp  Host: 127.0.0.1:7331  Authorization: Bearer <token>   →  the SDK's answer
 *   POST /mcp  Host: evil.example:7331                                →  403
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { redactText } from "../secrets/index.ts";

/** What answers a request that passed the checks: a web-standard fetch handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** The path the server answers on. */
export const MCP_PATH = "/mcp";

/** A running HTTP server. */
export interface HttpServing {
	url: string;
	port: number;
	close(): Promise<void>;
}

/** Why a request is refused before it reaches the SDK, or undefined when it passes. */
export function refusal(
	headers: { host?: string; origin?: string; authorization?: string },
	port: number,
	token: string,
): { status: number; why: string } | undefined {
	const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
	if (!headers.host || !allowed.has(headers.host.toLowerCase()))
		return { status: 403, why: "the Host header does not name this server (127.0.0.1)" };
	if (headers.origin !== undefined) {
		let origin: string | undefined;
		try {
			const u = new URL(headers.origin);
			origin = u.protocol === "http:" ? u.host.toLowerCase() : undefined;
		} catch {
			// Not a URL (`null` from a sandboxed page): not this server's origin.
		}
		if (!origin || !allowed.has(origin)) return { status: 403, why: "the Origin is not this server's" };
	}
	const given = /^Bearer (.+)$/i.exec(headers.authorization ?? "")?.[1];
	if (!given || !sameSecret(given, token)) return { status: 401, why: "a valid bearer token is required" };
	return undefined;
}

function sameSecret(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/** Serves `handler` on 127.0.0.1:`port` (0: a free port) behind {@link refusal}'s checks. */
export function serveHttp(handler: FetchHandler, port: number, token: string): Promise<HttpServing> {
	let bound = port;
	const server: Server = createServer((req, res) => {
		void answer(req, res);
	});
	async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const refused = refusal(
			{
				...(req.headers.host ? { host: req.headers.host } : {}),
				...(req.headers.origin ? { origin: req.headers.origin } : {}),
				...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
			},
			bound,
			token,
		);
		if (refused) {
			res.writeHead(refused.status, { "content-type": "text/plain" }).end(`${refused.why}\n`);
			return;
		}
		const url = new URL(req.url ?? "/", `http://127.0.0.1:${bound}`);
		if (url.pathname !== MCP_PATH) {
			res.writeHead(404, { "content-type": "text/plain" }).end(`pi-flows answers MCP on ${MCP_PATH}\n`);
			return;
		}
		// The client going away aborts the request: on the 2026 era that is how a call is cancelled.
		const abort = new AbortController();
		res.on("close", () => abort.abort());
		const headers = new Headers();
		for (const [k, v] of Object.entries(req.headers))
			if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
		const hasBody = req.method !== "GET" && req.method !== "HEAD";
		const request = new Request(url, {
			method: req.method ?? "GET",
			headers,
			signal: abort.signal,
			...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
		} as RequestInit);
		try {
			const response = await handler(request);
			res.writeHead(response.status, Object.fromEntries(response.headers));
			if (!response.body) {
				res.end();
				return;
			}
			for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
				if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
			}
			res.end();
		} catch (error) {
			// The client left mid-stream, or the handler failed: end this response, never the server.
			if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
			res.end(abort.signal.aborted ? undefined : `${redactText((error as Error).message)}\n`);
		}
	}
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(port, "127.0.0.1", () => {
			bound = (server.address() as AddressInfo).port;
			resolve({
				url: `http://127.0.0.1:${bound}${MCP_PATH}`,
				port: bound,
				close: () =>
					new Promise<void>((done) => {
						server.closeAllConnections();
						server.close(() => done());
					}),
			});
		});
	});
}
