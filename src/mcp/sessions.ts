/**
 * The 2025 era over streamable HTTP, with sessions: a 2025-era client (every host today) opens a session
 * with `initialize`, the server names it in `Mcp-Session-Id`, and every later request of that client
 * carries it, so a request the server sends mid-call (`elicitation/create`, an ask node's form) and the
 * client's answer meet the same server instance. Served statelessly, as `createMcpHandler` serves the
 * 2025 era by default, the answer would reach a fresh instance that never asked, and such a client could
 * answer no form. The 2026-07-28 era needs none of this: it is stateless by design, one request at a time.
 *
 *   POST /mcp {initialize}                          →  200, Mcp-Session-Id: 6f1c…   (a server instance)
 *   POST /mcp Mcp-Session-Id: 6f1c… {tools/call}    →  that instance's answer
 *   DELETE /mcp Mcp-Session-Id: 6f1c…               →  the session closed
 */
import { randomUUID } from "node:crypto";
import { type McpServer, WebStandardStreamableHTTPServerTransport } from "./sdk.ts";

/** At most this many sessions are kept; past it, the one idle longest is closed (a host reconnects). */
export const MAX_SESSIONS = 64;

interface Session {
	transport: WebStandardStreamableHTTPServerTransport;
	server: McpServer;
	used: number;
}

/** The sessionful 2025-era leg: one server instance per session, made by `factory` at `initialize`. */
export function legacySessions(factory: () => McpServer, onerror: (error: Error) => void) {
	const sessions = new Map<string, Session>();
	const drop = async (id: string) => {
		const s = sessions.get(id);
		if (!s) return;
		sessions.delete(id);
		await s.transport.close().catch(() => undefined);
		await s.server.close().catch(() => undefined);
	};

	async function open(request: Request): Promise<Response> {
		if (sessions.size >= MAX_SESSIONS) {
			const idlest = [...sessions].sort((a, b) => a[1].used - b[1].used)[0];
			if (idlest) await drop(idlest[0]);
		}
		const server = factory();
		const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			onsessioninitialized: (id) => {
				sessions.set(id, { transport, server, used: Date.now() });
			},
			onsessionclosed: (id) => {
				void drop(id);
			},
		});
		transport.onerror = onerror;
		await server.connect(transport);
		const response = await transport.handleRequest(request);
		// A request that did not open a session (not an `initialize`) leaves nothing behind.
		if (!transport.sessionId) {
			await transport.close().catch(() => undefined);
			await server.close().catch(() => undefined);
		}
		return response;
	}

	return {
		/** Answers one 2025-era request: a new session for `initialize`, else the named session's. */
		async fetch(request: Request): Promise<Response> {
			const id = request.headers.get("mcp-session-id");
			if (!id) return open(request);
			const session = sessions.get(id);
			if (!session)
				return Response.json(
					{ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found; initialize again" } },
					{ status: 404 },
				);
			session.used = Date.now();
			return session.transport.handleRequest(request);
		},
		/** Closes every session. */
		async close(): Promise<void> {
			await Promise.all([...sessions.keys()].map(drop));
		},
	};
}
