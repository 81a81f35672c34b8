/**
 * Who may talk to the server. A local web server is reachable by every page the person's browser opens
 * (a hostile page can aim requests at 127.0.0.1, or rebind its own name to it), so every request passes:
 *
 *   Host    one of this server's own names and port (a rebound name fails here: DNS rebinding)
 *   Origin  when sent, this server's own origin; a cross-site fetch (`Sec-Fetch-Site: cross-site`) is refused
 *   token   the one-time token of the printed URL, traded on first use for a session cookie
 *           (HttpOnly, SameSite=Strict), which every later request must carry
 *   CSRF    an action is a POST with JSON, this origin, and the session's CSRF token in a header
 *
 * Pure decisions over the request's headers, so each rule is tested alone.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The header an action carries its CSRF token in. */
export const CSRF_HEADER = "x-pi-flows-csrf";

/** A refusal: the HTTP status and one sentence. */
export interface Refused {
	status: number;
	why: string;
}

function same(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/** The guard of one server: its names, its token, its sessions. */
export interface Guard {
	/** The token of the printed URL; it works once. */
	readonly token: string;
	/** The cookie's name (per port: two servers on one machine never read each other's). */
	readonly cookie: string;
	/** Host and Origin checks, for every request. */
	checkPlace(req: IncomingMessage): Refused | undefined;
	/** The session of a request (from its cookie), or undefined. */
	session(req: IncomingMessage): string | undefined;
	/** Trades the URL's token for a new session; undefined when the token is wrong or was used already. */
	redeem(token: string): string | undefined;
	/** The `Set-Cookie` of a session. */
	setCookie(session: string): string;
	/** The CSRF token of a session, which its pages carry. */
	csrf(session: string): string;
	/** The checks of an action (a POST), past the session. */
	checkAction(req: IncomingMessage, session: string): Refused | undefined;
}

/** The guard of a server listening on `port`, reachable by `names` (loopback names, plus `--host`'s). */
export function makeGuard(port: number, names: readonly string[]): Guard {
	const token = randomBytes(24).toString("base64url");
	const secret = randomBytes(32);
	const sessions = new Set<string>();
	let redeemed = false;
	const hosts = new Set(names.map((n) => `${n.includes(":") && !n.startsWith("[") ? `[${n}]` : n}:${port}`));
	const origins = new Set([...hosts].map((h) => `http://${h}`));
	const cookie = `pi_flows_${port}`;
	return {
		token,
		cookie,
		checkPlace(req) {
			const host = req.headers.host ?? "";
			if (!hosts.has(host.toLowerCase()))
				return {
					status: 421,
					why: `this server answers to ${[...hosts].join(", ")}, not to the Host \`${host}\` (a name rebound to this machine is refused)`,
				};
			const origin = req.headers.origin;
			if (origin !== undefined && !origins.has(origin))
				return { status: 403, why: `requests from the origin \`${origin}\` are refused` };
			const site = req.headers["sec-fetch-site"];
			const mode = req.headers["sec-fetch-mode"];
			if (site === "cross-site" && mode !== "navigate")
				return { status: 403, why: "requests from another site are refused" };
			return undefined;
		},
		session(req) {
			const header = req.headers.cookie ?? "";
			for (const part of header.split(";")) {
				const [name, ...rest] = part.trim().split("=");
				if (name !== cookie) continue;
				const value = rest.join("=");
				for (const s of sessions) if (same(s, value)) return s;
			}
			return undefined;
		},
		redeem(given) {
			if (redeemed || !same(given, token)) return undefined;
			redeemed = true;
			const s = randomBytes(24).toString("base64url");
			sessions.add(s);
			return s;
		},
		setCookie(session) {
			return `${cookie}=${session}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000`;
		},
		csrf(session) {
			return createHmac("sha256", secret).update(session).digest("base64url");
		},
		checkAction(req, session) {
			if (req.method !== "POST") return { status: 405, why: "actions are POSTs" };
			if (req.headers.origin === undefined) return { status: 403, why: "an action must say its Origin" };
			const type = req.headers["content-type"] ?? "";
			if (!type.startsWith("application/json")) return { status: 415, why: "an action's body is JSON" };
			const given = req.headers[CSRF_HEADER];
			if (typeof given !== "string" || !same(given, this.csrf(session)))
				return { status: 403, why: "the action's CSRF token is missing or wrong; reload the page" };
			return undefined;
		},
	};
}

/** The names a loopback server answers to. */
export const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"];
