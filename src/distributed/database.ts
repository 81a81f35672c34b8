/**
 * The Postgres database the distributed backend shares between machines: its URL read and checked, a
 * connection opened with a bounded wait, and every way that fails turned into a value with a code from the
 * fault catalogue and a message naming what to fix (the host and port, the user, the database), with any
 * password cut out. Nothing here throws on a database's account; {@link DatabaseFault} exists for the few
 * callers (a DBOS step) that must throw, and carries the same redacted text.
 */
import { Pool, type PoolClient } from "pg";
import type { FaultCode } from "../faults/index.ts";
import { redact, redactError, redactUrl, rememberSecret } from "../secrets/index.ts";

/** The environment variable a database URL may come from, so it stays out of `ps` and shell history. */
export const DATABASE_URL_ENV = "PI_FLOWS_DATABASE_URL";

/** How long a connection attempt may take before the database counts as unreachable. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** The codes this module fails with: the catalogue's `database` stage. */
export type DatabaseFaultCode = Extract<FaultCode, `database-${string}`>;

/** A database failure as a value: what went wrong, where, and what to do about it. Never holds a password. */
export interface DatabaseFailure {
	ok: false;
	code: DatabaseFaultCode;
	/** One sentence naming the database (`host:port/name`) and what happened, redacted. */
	message: string;
	/** What to fix. */
	hint: string;
	/** The URL with its password masked, when one was given. */
	target?: string;
	/** Postgres' SQLSTATE or Node's error code, when there was one: for tools, never shown alone. */
	cause?: string;
}

/** A value or a {@link DatabaseFailure}. */
export type DatabaseResult<T> = { ok: true; value: T } | DatabaseFailure;

/** A parsed database URL. `url` holds the password: pass it to drivers, never to a message. */
export interface DatabaseTarget {
	/** The URL as given, password included. */
	url: string;
	/** The URL with the password masked: what messages show. */
	shown: string;
	host: string;
	port: number;
	database: string;
	/** Empty when the URL names none (the driver then uses `PGUSER` or the login name). */
	user: string;
}

/**
 * The error form of a {@link DatabaseFailure}, for code that must throw (a DBOS step, a promise chain the
 * caller does not own). Message and stack hold only redacted text, and no `cause` is attached, since a
 * driver's error can carry the connection string.
 */
export class DatabaseFault extends Error {
	readonly code: DatabaseFaultCode;
	readonly hint: string;
	readonly failure: DatabaseFailure;
	constructor(failure: DatabaseFailure) {
		super(`${failure.code}: ${failure.message}`);
		this.name = "DatabaseFault";
		this.code = failure.code;
		this.hint = failure.hint;
		this.failure = failure;
	}
	toJSON(): DatabaseFailure {
		return this.failure;
	}
}

/** Builds a failure; message and hint are redacted here, so no caller can forget. */
export function databaseFailure(
	code: DatabaseFaultCode,
	message: string,
	hint: string,
	extra: { target?: string; cause?: string } = {},
): DatabaseFailure {
	return {
		ok: false,
		code,
		message: redact(message),
		hint: redact(hint),
		...(extra.target ? { target: redactUrl(extra.target) } : {}),
		...(extra.cause ? { cause: redact(extra.cause) } : {}),
	};
}

/** `--database` if given, else {@link DATABASE_URL_ENV}; undefined when neither is set. */
export function resolveDatabaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
	const given = flag?.trim() || env[DATABASE_URL_ENV]?.trim();
	return given || undefined;
}

/**
 * Reads a `postgres://user:password@host:port/database` URL (query parameters such as `sslmode` pass through
 * to the driver). The password, and `PGPASSWORD` when set, are remembered for redaction before anything can
 * print them. A database name is required: the driver's default (the user's name) is a surprise when a
 * worker and a client on two machines guess differently.
 */
export function parseDatabaseUrl(text: string | undefined): DatabaseResult<DatabaseTarget> {
	if (process.env.PGPASSWORD) rememberSecret(process.env.PGPASSWORD);
	const given = text?.trim() ?? "";
	const shape = "postgres://USER:PASSWORD@HOST:PORT/DATABASE";
	if (!given) {
		return databaseFailure(
			"database-url",
			"no database given",
			`pass --database ${shape}, or set ${DATABASE_URL_ENV} (which keeps the password off the command line)`,
		);
	}
	let url: URL;
	try {
		url = new URL(given);
	} catch {
		// The text may hold a password we cannot find the edges of: show only its scheme-less shape.
		const userinfo = /^[a-z][a-z0-9+.-]*:\/\/[^@/]*:([^@/]*)@/i.exec(given);
		if (userinfo?.[1]) rememberSecret(userinfo[1]);
		return databaseFailure(
			"database-url",
			`the database URL "${redact(given)}" is not a URL`,
			`write it as ${shape}; percent-encode characters such as @ : / # in the password`,
		);
	}
	if (url.password) {
		rememberSecret(url.password);
		try {
			rememberSecret(decodeURIComponent(url.password));
		} catch {
			// Kept raw: not valid percent-encoding.
		}
	}
	const shown = redactUrl(given);
	if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
		return databaseFailure(
			"database-url",
			`the database URL ${shown} is not a Postgres URL (scheme "${url.protocol.replace(/:$/, "")}")`,
			`write it as ${shape}`,
			{ target: given },
		);
	}
	const host = url.hostname.replace(/^\[(.*)\]$/, "$1") || url.searchParams.get("host") || "";
	if (!host) {
		return databaseFailure("database-url", `the database URL ${shown} names no host`, `write it as ${shape}`, {
			target: given,
		});
	}
	const database = safeDecode(url.pathname.replace(/^\//, ""));
	if (!database || database.includes("/")) {
		return databaseFailure(
			"database-url",
			`the database URL ${shown} names no database`,
			`end it with the database's name: ${shape}`,
			{ target: given },
		);
	}
	return {
		ok: true,
		value: {
			url: given,
			shown,
			host,
			port: url.port ? Number(url.port) : 5432,
			database,
			user: safeDecode(url.username),
		},
	};
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/**
 * A failure as the CLI prints it: `pi-flows: <code>: <message>` and the fix on the next line. Redacted
 * again on the way out, for a failure built elsewhere by hand.
 */
export function formatDatabaseFailure(failure: DatabaseFailure): string {
	return redact(`pi-flows: ${failure.code}: ${failure.message}\n  ${failure.hint}`);
}

/** `host:port/database`, what a person recognises their database by. */
export function describeTarget(target: DatabaseTarget): string {
	const host = target.host.includes(":") ? `[${target.host}]` : target.host;
	return `${host}:${target.port}/${target.database}`;
}

/** Socket-level codes that mean nothing answered. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"]);
/** Socket-level codes that mean a connection that was up went down. */
const DROPPED = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/** The first error code found on an error or inside an AggregateError (one per address tried). */
function errorCode(error: unknown): string | undefined {
	if (typeof error !== "object" || error === null) return undefined;
	const code = (error as { code?: unknown }).code;
	if (typeof code === "string" && code) return code;
	const inner = (error as { errors?: unknown }).errors;
	if (Array.isArray(inner)) for (const e of inner) if (errorCode(e)) return errorCode(e);
	return undefined;
}

/**
 * What a driver error means, as a {@link DatabaseFailure}. `phase` separates a connection that never came up
 * (`connect`: unreachable) from one that broke (`use`: lost). Decided from SQLSTATE and socket codes first;
 * the driver's own words only where it gives no code (its connect timeout, a missing password).
 */
export function classifyDatabaseError(
	error: unknown,
	target: DatabaseTarget,
	phase: "connect" | "use",
): DatabaseFailure {
	const where = describeTarget(target);
	const code = errorCode(error);
	const text = redactError(error);
	const extra = { target: target.url, ...(code ? { cause: code } : {}) };
	const who = target.user ? `user "${target.user}"` : "the user";
	const isp = (pattern: RegExp) => pattern.test(text);

	if (code === "28P01" || code === "28000" || isp(/password must be a string|SASL|password authentication/i)) {
		const missing = isp(/password must be a string/i);
		return databaseFailure(
			"database-auth",
			missing
				? `the database at ${where} wants a password for ${who} and none was given`
				: `the database at ${where} refused ${who}: ${text}`,
			missing
				? `put the password in the URL (postgres://USER:PASSWORD@...) or in PGPASSWORD`
				: `correct the user and password in the URL (or PGPASSWORD); if they are right, the server's pg_hba.conf must let ${who} in from this machine`,
			extra,
		);
	}
	if (code === "3D000") {
		return databaseFailure(
			"database-missing",
			`database "${target.database}" does not exist on ${target.host}:${target.port}`,
			`create it (createdb -h ${target.host} -p ${target.port} ${target.database}) or correct the name at the end of the URL`,
			extra,
		);
	}
	if (code === "42501") {
		return databaseFailure(
			"database-denied",
			`${who} may not do this on ${where}: ${text}`,
			"run the first worker as the database's owner (it creates the pi_flows and dbos schemas), or grant this user rights on them",
			extra,
		);
	}
	if (isp(/does not support SSL|self[- ]signed certificate|unable to verify|certificate|\bSSL\b|\bTLS\b/i)) {
		const noTls = isp(/does not support SSL/i);
		return databaseFailure(
			"database-error",
			noTls
				? `the database at ${target.host}:${target.port} does not offer TLS, and the URL asks for it`
				: `TLS with the database at ${target.host}:${target.port} failed: ${text}`,
			noTls
				? "turn on ssl in the server's configuration, or take sslmode=require (or verify-*) out of the URL"
				: "give the server's CA with sslrootcert=<file> in the URL, or check the host name the certificate is for",
			extra,
		);
	}
	const timedOut = isp(/timeout expired|connection timeout/i);
	const dropped =
		(code !== undefined && (DROPPED.has(code) || code.startsWith("08") || code === "57P01" || code === "57P02")) ||
		isp(/Connection terminated|not queryable|terminating connection/i);
	if (
		phase === "connect" &&
		((code !== undefined && UNREACHABLE.has(code)) || timedOut || dropped || code === "57P03")
	) {
		const why = timedOut
			? "no answer within the connect timeout"
			: code === "57P03"
				? "it is starting or stopping"
				: text;
		return databaseFailure(
			"database-unreachable",
			`cannot reach the database at ${target.host}:${target.port} (${why})`,
			`check that Postgres runs there and listens on that address and port (pg_isready -h ${target.host} -p ${target.port}), and that this machine may reach it`,
			extra,
		);
	}
	if (dropped || (code !== undefined && UNREACHABLE.has(code)) || timedOut || code === "57P03") {
		return databaseFailure(
			"database-lost",
			`the connection to the database at ${where} was lost (${text})`,
			"nothing recorded is lost; a visit whose result was not recorded runs again once a worker reconnects. If it repeats, check the server's log and the network",
			extra,
		);
	}
	return databaseFailure(
		"database-error",
		`the database at ${where} failed: ${text}`,
		"read the server's message and its log",
		extra,
	);
}

/** Options of {@link openDatabase}. */
export interface OpenOptions {
	/** Default {@link DEFAULT_CONNECT_TIMEOUT_MS}. */
	connectTimeoutMs?: number;
	/** Create the database when it does not exist (connecting to `postgres` on the same server). Default false. */
	create?: boolean;
	/** Shown in `pg_stat_activity`. Default `pi-flows`. */
	applicationName?: string;
	/** Connections in the pool. Default 4: pi-flows' own queries are few; DBOS keeps a pool of its own. */
	max?: number;
}

/** An open database: queries that fail as values, and the first connection loss remembered. */
export interface Database {
	readonly target: DatabaseTarget;
	/** Runs one statement. */
	query<R extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<DatabaseResult<R[]>>;
	/**
	 * Runs `fn` on one connection of its own (a transaction, a session lock). Whatever `fn` throws comes back
	 * as a failure; a {@link DatabaseFault} comes back as its own failure.
	 */
	withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<DatabaseResult<T>>;
	/** The loss of an idle connection, if one happened since opening (the pool replaces it). */
	lost(): DatabaseFailure | undefined;
	/** Closes every connection. Safe to call twice. */
	close(): Promise<void>;
}

/**
 * Opens a pool on the target and proves it with one round trip, so a wrong host, password or database is
 * reported here, once, with its fix, rather than as the first failing query of a run.
 */
export async function openDatabase(
	target: DatabaseTarget,
	options: OpenOptions = {},
): Promise<DatabaseResult<Database>> {
	const timeout = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
	const pool = new Pool({
		connectionString: target.url,
		connectionTimeoutMillis: timeout,
		max: options.max ?? 4,
		application_name: options.applicationName ?? "pi-flows",
		// A peer that vanished without a reset (a cut network path) is found by TCP keepalive probes.
		keepAlive: true,
		keepAliveInitialDelayMillis: 10_000,
	});
	let lost: DatabaseFailure | undefined;
	// An idle connection's error with no listener would end the process; it is remembered instead.
	pool.on("error", (error) => {
		lost ??= classifyDatabaseError(error, target, "use");
	});
	let client: PoolClient | undefined;
	try {
		client = await pool.connect();
		await client.query("SELECT 1");
	} catch (error) {
		await pool.end().catch(() => {});
		const failure = classifyDatabaseError(error, target, "connect");
		if (failure.code === "database-missing" && options.create) {
			const made = await createDatabase(target, timeout);
			if (!made.ok) return made;
			return openDatabase(target, { ...options, create: false });
		}
		return failure;
	} finally {
		client?.release();
	}
	let closed = false;
	const database: Database = {
		target,
		async query<R extends object>(text: string, params: unknown[] = []) {
			try {
				const result = await pool.query<R>(text, params);
				return { ok: true, value: result.rows };
			} catch (error) {
				return classifyDatabaseError(error, target, "use");
			}
		},
		async withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<DatabaseResult<T>> {
			let held: PoolClient | undefined;
			let broken: unknown;
			try {
				held = await pool.connect();
			} catch (error) {
				return classifyDatabaseError(error, target, "use");
			}
			const onError = (error: unknown) => {
				broken ??= error;
			};
			held.on("error", onError);
			try {
				return { ok: true, value: await fn(held) };
			} catch (error) {
				broken ??= error;
				return error instanceof DatabaseFault ? error.failure : classifyDatabaseError(error, target, "use");
			} finally {
				held.removeListener("error", onError);
				// A connection that failed is not given back for reuse.
				held.release(broken instanceof Error ? broken : undefined);
			}
		},
		lost: () => lost,
		async close() {
			if (closed) return;
			closed = true;
			await pool.end().catch(() => {});
		},
	};
	return { ok: true, value: database };
}

/** Creates the target's database through the server's `postgres` database; a racing creator is fine. */
async function createDatabase(target: DatabaseTarget, timeout: number): Promise<DatabaseResult<void>> {
	const url = new URL(target.url);
	url.pathname = "/postgres";
	const pool = new Pool({ connectionString: url.toString(), connectionTimeoutMillis: timeout, max: 1 });
	pool.on("error", () => {});
	try {
		await pool.query(`CREATE DATABASE "${target.database.replaceAll('"', '""')}"`);
		return { ok: true, value: undefined };
	} catch (error) {
		// 42P04: someone else created it meanwhile, which is what we wanted.
		if (errorCode(error) === "42P04") return { ok: true, value: undefined };
		const failure = classifyDatabaseError(error, { ...target, database: "postgres" }, "connect");
		if (failure.code === "database-denied" || failure.code === "database-error") {
			return databaseFailure(
				"database-missing",
				`database "${target.database}" does not exist on ${target.host}:${target.port}, and creating it failed: ${failure.message}`,
				`create it as a user who may (createdb -h ${target.host} -p ${target.port} ${target.database})`,
				{ target: target.url, ...(failure.cause ? { cause: failure.cause } : {}) },
			);
		}
		return failure;
	} finally {
		await pool.end().catch(() => {});
	}
}
