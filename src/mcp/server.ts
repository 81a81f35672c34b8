/**
 * `pi-flows mcp`'s serving: over stdio (the host spawns the server and speaks on its stdin and stdout),
 * or over streamable HTTP on 127.0.0.1. Both serve the 2026-07-28 revision and the 2025-era ones
 * (2024-11-05 to 2025-11-25) from one tool set. Runs live as long as the server does: when the host
 * closes stdio, or the HTTP server is told to stop, every run still going is stopped as Ctrl-C stops it
 * and waited for, so each lands its handoff and stays resumable.
 */
import { randomBytes } from "node:crypto";
import { type HttpServing, serveHttp } from "./http.ts";
import type { LiveRun } from "./live-run.ts";
import { createMcpHandler, createRequestStateCodec, serveStdio } from "./sdk.ts";
import type { McpSettings } from "./settings.ts";
import { flowCatalogue } from "./catalogue.ts";
import { buildServer, type Resume, type ServerWorld, type Verify } from "./tools.ts";

/** A serving server. */
export interface Serving {
	/** The HTTP endpoint, when serving HTTP. */
	url?: string;
	/** Settles when stdio closed (the host went away); never for HTTP. */
	closed: Promise<void>;
	/** Stops every run still going (as Ctrl-C does), waits for each to land, then stops serving. */
	close(): Promise<void>;
}

/** How long a question's sealed state stays valid: a person may take a while over a form. */
const STATE_TTL_S = 24 * 60 * 60;

function world(settings: McpSettings): { world: ServerWorld; verify: Verify } {
	// A key of this process only: every round of a question comes back to the process that asked it.
	const codec = createRequestStateCodec<Resume>({ key: randomBytes(32), ttlSeconds: STATE_TTL_S });
	let tick = 0;
	return {
		world: {
			settings,
			catalogue: flowCatalogue(settings),
			runs: new Map<string, LiveRun>(),
			mint: (state) => codec.mint(state),
			tick: () => ++tick,
		},
		verify: (state, ctx) => codec.verify(state, ctx),
	};
}

/** Stops every run still going and waits for each to land. */
async function stopAll(runs: ReadonlyMap<string, LiveRun>): Promise<void> {
	const going = [...runs.values()].filter((r) => !r.outcome());
	for (const r of going) r.stop();
	await Promise.all(going.map((r) => r.done.catch(() => undefined)));
}

/** Serves over this process's stdin and stdout until the host closes them. */
export function serveOverStdio(settings: McpSettings): Serving {
	const { world: w, verify } = world(settings);
	// The catalogue is read once before the first connection, so its notes reach stderr at start.
	w.catalogue.tools();
	const handle = serveStdio(() => buildServer(w, verify), {
		onerror: (error) => settings.note(`stdio: ${error.message}`),
	});
	let closing: Promise<void> | undefined;
	const close = () => {
		closing ??= (async () => {
			await stopAll(w.runs);
			await handle.close();
		})();
		return closing;
	};
	const closed = new Promise<void>((resolve) => {
		process.stdin.once("end", () => void close().then(resolve));
		process.stdin.once("close", () => void close().then(resolve));
	});
	return { closed, close };
}

/** Serves streamable HTTP on 127.0.0.1:`port` (0: a free one) for clients bearing `token`. */
export async function serveOverHttp(settings: McpSettings, port: number, token: string): Promise<Serving> {
	const { world: w, verify } = world(settings);
	w.catalogue.tools();
	const handler = createMcpHandler(() => buildServer(w, verify), {
		onerror: (error) => settings.note(`http: ${error.message}`),
	});
	const http: HttpServing = await serveHttp((request) => handler.fetch(request), port, token);
	let closing: Promise<void> | undefined;
	return {
		url: http.url,
		closed: new Promise<void>(() => {}),
		close: () => {
			closing ??= (async () => {
				await stopAll(w.runs);
				await handler.close();
				await http.close();
			})();
			return closing;
		},
	};
}
