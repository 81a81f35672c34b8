/**
 * `pi-flows serve`'s HTTP server: node's own `http`, no framework. Every request passes the guard
 * (`guard.ts`: Host, Origin, the token's session, and for actions CSRF) before anything is read; the
 * routes are few and fixed:
 *
 *   GET  /                              the runs list          GET /api/runs, /api/runs/events (SSE)
 *   GET  /run/<folder|dbos>/<id>        a run's page           GET /api/run/<s>/<id>, …/events (SSE)
 *   POST /api/run/<s>/<id>/<answer|stop|resume|rerun>         actions (`actions.ts`)
 *   GET  /assets/<app.js|app.css|report.css>                  the shipped page code
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../package/index.ts";
import { REPORT_CSS } from "../report/index.ts";
import { redactJson, redactText } from "../secrets/index.ts";
import { type ActionResult, answerAction, resumeAction, stopAction } from "./actions.ts";
import { Catalog, type CatalogOptions } from "./catalog.ts";
import { type Guard, LOOPBACK_NAMES, makeGuard } from "./guard.ts";
import { send } from "./live.ts";
import { CSP, refusedPage, runPage, runsPage } from "./pages.ts";
import type { SourceKind } from "./record.ts";

/** Options of a server. */
export interface ServeOptions extends CatalogOptions {
	/** Where it listens. Default 127.0.0.1. */
	host?: string;
	/** Default 0: a free port. */
	port?: number;
}

/** A running server. */
export interface Served {
	/** The URL to open, with its one-time token. */
	url: string;
	/** The server's origin (no token). */
	origin: string;
	port: number;
	close(): Promise<void>;
}

const HEADERS = {
	"content-security-policy": CSP,
	"x-content-type-options": "nosniff",
	"referrer-policy": "no-referrer",
	"cache-control": "no-store",
	"x-frame-options": "DENY",
	"cross-origin-opener-policy": "same-origin",
	"cross-origin-resource-policy": "same-origin",
};

/** The page's code, from the sources in a checkout or from `dist/serve/` in the installed package. */
function asset(name: string): string {
	for (const dir of [join(PACKAGE_ROOT, "src", "serve", "assets"), join(PACKAGE_ROOT, "dist", "serve")]) {
		try {
			return readFileSync(join(dir, name), "utf8");
		} catch {
			// Not in this layout; the other one has it.
		}
	}
	throw new Error(`pi-flows serve: the page's ${name} is missing from the package; reinstalling pi-flows repairs it`);
}

function reply(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}) {
	res.writeHead(status, { ...HEADERS, "content-type": type, ...extra });
	// A page names run folders and ids, which a run's words can reach: they leave redacted like the rest.
	res.end(type.startsWith("text/html") ? redactText(body) : body);
}

function json(res: ServerResponse, status: number, value: unknown) {
	reply(res, status, "application/json; charset=utf-8", JSON.stringify(redactJson(value)));
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, why: string) {
	if ((req.headers.accept ?? "").includes("text/html"))
		reply(res, status, "text/html; charset=utf-8", refusedPage(status, why));
	else json(res, status, { ok: false, said: why });
}

const MAX_BODY = 64 * 1024;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY) throw new Error("too large");
		chunks.push(chunk as Buffer);
	}
	return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}

/** Starts the server; resolves once it listens. */
export async function startServer(options: ServeOptions): Promise<Served> {
	const host = options.host ?? "127.0.0.1";
	const catalog = new Catalog(options);
	const assets = { "app.js": asset("app.js"), "app.css": asset("app.css"), "report.css": REPORT_CSS };
	const lists = new Set<ServerResponse>();
	let guard: Guard | undefined;
	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (!res.headersSent) json(res, 500, { ok: false, said: `internal error: ${(error as Error).message}` });
			else res.end();
		});
	});

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const g = guard as Guard;
		const place = g.checkPlace(req);
		if (place) return refuse(req, res, place.status, place.why);
		const url = new URL(req.url ?? "/", "http://server");
		const token = url.searchParams.get("token");
		if (token !== null && req.method === "GET") {
			const session = g.redeem(token);
			if (!session)
				return refuse(
					req,
					res,
					403,
					"this link's token was used already or is wrong: run `pi-flows serve` again for a new link",
				);
			res.writeHead(303, { ...HEADERS, location: url.pathname, "set-cookie": g.setCookie(session) });
			return void res.end();
		}
		const session = g.session(req);
		if (!session) return refuse(req, res, 401, "this page needs the token of the link `pi-flows serve` printed");
		const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
		if (req.method === "POST") {
			const bad = g.checkAction(req, session);
			if (bad) return refuse(req, res, bad.status, bad.why);
			if (parts[0] !== "api" || parts[1] !== "run" || parts.length !== 5)
				return refuse(req, res, 404, "no such action");
			const [, , source, id, action] = parts;
			if (source !== "folder" && source !== "dbos") return refuse(req, res, 404, "no such run");
			let body: unknown;
			try {
				body = await bodyOf(req);
			} catch {
				return refuse(req, res, 400, "the action's body is not JSON (or is too large)");
			}
			const result = await act(source, id, action, body);
			return json(res, result.status, { ok: result.ok, said: result.said });
		}
		if (req.method !== "GET") return refuse(req, res, 405, "only GET and POST");
		if (url.pathname === "/favicon.ico") return void res.writeHead(204, HEADERS).end();
		if (parts[0] === "assets" && parts.length === 2 && parts[1] in assets) {
			const name = parts[1] as keyof typeof assets;
			const type = name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
			return reply(res, 200, type, assets[name]);
		}
		if (parts.length === 0) return reply(res, 200, "text/html; charset=utf-8", runsPage(g.csrf(session), options.home));
		if (parts[0] === "run" && parts.length === 3 && (parts[1] === "folder" || parts[1] === "dbos")) {
			const live = await catalog.live(parts[1], parts[2]);
			if (!live.ok) return refuse(req, res, live.status, live.why);
			return reply(res, 200, "text/html; charset=utf-8", runPage(g.csrf(session), parts[1], parts[2]));
		}
		if (parts[0] === "api" && parts[1] === "runs" && parts.length === 2) return json(res, 200, await catalog.list());
		if (parts[0] === "api" && parts[1] === "runs" && parts[2] === "events" && parts.length === 3)
			return listStream(res);
		if (parts[0] === "api" && parts[1] === "run" && (parts[2] === "folder" || parts[2] === "dbos")) {
			const live = await catalog.live(parts[2], parts[3] ?? "");
			if (!live.ok) return refuse(req, res, live.status, live.why);
			if (parts.length === 4) return json(res, 200, await live.value.view());
			if (parts.length === 5 && parts[4] === "events") {
				openStream(res);
				const last = req.headers["last-event-id"];
				return live.value.add(res, typeof last === "string" ? last : undefined);
			}
		}
		return refuse(req, res, 404, "no such page");
	}

	async function act(source: SourceKind, id: string, action: string, body: unknown): Promise<ActionResult> {
		if (action === "answer") return answerAction(catalog, source, id, body);
		if (action === "stop") return stopAction(catalog, source, id);
		if (action === "resume") return resumeAction(catalog, source, id, body);
		if (action === "rerun")
			return {
				status: 501,
				ok: false,
				said: "rerun from a node needs the reuse of earlier visits (issue 35), which is not in this version yet",
			};
		return { status: 404, ok: false, said: "no such action" };
	}

	function openStream(res: ServerResponse) {
		res.writeHead(200, { ...HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
		res.write("retry: 1000\n\n");
		const beat = setInterval(() => res.write(": beat\n\n"), 15_000);
		res.on("close", () => clearInterval(beat));
	}

	/** The runs list as a stream: sent again whenever it changed, looked at every second. */
	function listStream(res: ServerResponse) {
		openStream(res);
		lists.add(res);
		let last = "";
		let n = 0;
		const look = async () => {
			const list = await catalog.list();
			const text = JSON.stringify(list);
			if (text === last) return;
			last = text;
			send(res, String(++n), "runs", redactJson(list));
		};
		void look();
		const timer = setInterval(() => void look().catch(() => {}), 1000);
		res.on("close", () => {
			clearInterval(timer);
			lists.delete(res);
		});
	}

	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port ?? 0, host, () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	const names = [...new Set([...LOOPBACK_NAMES, host])];
	guard = makeGuard(port, names);
	const shownHost = host.includes(":") ? `[${host}]` : host;
	const origin = `http://${shownHost}:${port}`;
	return {
		url: `${origin}/?token=${guard.token}`,
		origin,
		port,
		async close() {
			for (const res of lists) res.end();
			await catalog.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
