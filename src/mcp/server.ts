/**
 * `pi-flows mcp`'s serving: over stdio (the host spawns the server and speaks on its stdin and stdout),
 * or over streamable HTTP on 127.0.0.1. Both serve the 2026-07-28 revision and the 2025-era ones
 * (2024-11-05 to 2025-11-25) from one tool set; over HTTP the 2026 era is served one request at a time and
 * the 2025 era in sessions (`sessions.ts`), so both can answer forms. When the host closes stdio, or the
 * HTTP server is told to stop, every run of this process still going is stopped as Ctrl-C stops it and
 * waited for, so each lands its handoff and stays resumable; a run on the DBOS backend's workers goes on.
 */
import { randomBytes } from "node:crypto";
import type { RunBackend } from "./backend.ts";
import { flowCatalogue } from "./catalogue.ts";
import { folderBackend } from "./folder.ts";
import { runResult } from "./follow.ts";
import { type HttpServing, serveHttp } from "./http.ts";
import type { LiveRun } from "./live-run.ts";
import { createMcpHandler, createRequestStateCodec, isLegacyRequest, serveStdio } from "./sdk.ts";
import { legacySessions } from "./sessions.ts";
import type { McpSettings } from "./settings.ts";
import { TaskTable } from "./tasks.ts";
import { buildServer, type Resume, type ServerWorld, type Verify } from "./tools.ts";

/** A serving server. */
export interface Serving {
	/** The HTTP endpoint, when serving HTTP. */
	url?: string;
	/** Settles when stdio closed (the host went away); never for HTTP. */
	closed: Promise<void>;
	/** Stops every run of this process still going (as Ctrl-C does), waits for each to land, then stops serving. */
	close(): Promise<void>;
}

/** How long a question's sealed state stays valid: a person may take a while over a form. */
const STATE_TTL_S = 24 * 60 * 60;

function world(settings: McpSettings, backend: RunBackend): { world: ServerWorld; verify: Verify } {
	// A key of this process only: every round of a question comes back to the process that asked it.
	const codec = createRequestStateCodec<Resume>({ key: randomBytes(32), ttlSeconds: STATE_TTL_S });
	let tick = 0;
	return {
		world: {
			settings,
			catalogue: flowCatalogue(settings),
			backend,
			runs: new Map<string, LiveRun>(),
			tasks: new TaskTable(settings.cwd, (run) => runResult(run, settings.cwd)),
			mint: (state) => codec.mint(state),
			tick: () => ++tick,
		},
		verify: (state, ctx) => codec.verify(state, ctx),
	};
}

/** Lets every run go (each as its backend does: stopped and landed, or no longer followed), then the backend. */
async function releaseAll(w: ServerWorld): Promise<void> {
	const going = [...w.runs.values()].filter((r) => !r.outcome());
	await Promise.all(going.map((r) => r.release()));
	await w.backend.close();
}

/** Serves over this process's stdin and stdout until the host closes them. */
export function serveOverStdio(settings: McpSettings, backend: RunBackend = folderBackend(settings)): Serving {
	const { world: w, verify } = world(settings, backend);
	// The catalogue is read once before the first connection, so its notes reach stderr at start.
	w.catalogue.tools();
	const handle = serveStdio((ctx) => buildServer(w, verify, ctx.era), {
		onerror: (error) => settings.note(`stdio: ${error.message}`),
	});
	let closing: Promise<void> | undefined;
	const close = () => {
		closing ??= (async () => {
			await releaseAll(w);
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
export async function serveOverHttp(
	settings: McpSettings,
	port: number,
	token: string,
	backend: RunBackend = folderBackend(settings),
): Promise<Serving> {
	const { world: w, verify } = world(settings, backend);
	w.catalogue.tools();
	const onerror = (error: Error) => settings.note(`http: ${error.message}`);
	// The 2026 era one request at a time; the 2025 era in sessions, so its forms reach the client.
	const modern = createMcpHandler((ctx) => buildServer(w, verify, ctx.era), { legacy: "reject", onerror });
	const legacy = legacySessions(() => buildServer(w, verify, "legacy"), onerror);
	const http: HttpServing = await serveHttp(
		async (request) => ((await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request)),
		port,
		token,
	);
	let closing: Promise<void> | undefined;
	return {
		url: http.url,
		closed: new Promise<void>(() => {}),
		close: () => {
			closing ??= (async () => {
				await releaseAll(w);
				await modern.close();
				await legacy.close();
				await http.close();
			})();
			return closing;
		},
	};
}
