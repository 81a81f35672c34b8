/**
 * pi-flows' tables in the shared database, and the one place they are created or changed. Workers on several
 * machines start at once: two migrating a fresh database together crashed one of them in the DBOS spike, so
 * every migration (ours and, through `also`, DBOS's own) runs under one Postgres advisory lock, and a process
 * that waited finds the work done. Before changing anything the versions are read: a database written by a
 * newer pi-flows or a newer DBOS is refused with the version to upgrade to, never half-migrated backwards.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientBase, PoolClient } from "pg";
import { PACKAGE_ROOT } from "../package/index.ts";
import {
	type Database,
	type DatabaseResult,
	DatabaseFault,
	databaseFailure,
	describeTarget,
	type OpenOptions,
	openDatabase,
	parseDatabaseUrl,
	resolveDatabaseUrl,
} from "./database.ts";

/** The schema pi-flows' own tables live in, apart from DBOS's `dbos` schema and the user's tables. */
export const SCHEMA = "pi_flows";

/**
 * pi-flows' migrations, in order; version n is the n-th. Each runs in one transaction with the version's
 * bump. Append, never edit: a database records how far it got.
 */
export const MIGRATIONS: readonly { version: number; sql: readonly string[] }[] = [
	{
		version: 1,
		sql: [
			`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`,
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.meta (key text PRIMARY KEY, value text NOT NULL)`,
		],
	},
	{
		// The DBOS run backend's record (src/distributed/store.ts): runs, the journal's facts, events, workers.
		version: 2,
		sql: [
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.runs (
				id text PRIMARY KEY,
				flow text NOT NULL,
				created_at timestamptz NOT NULL DEFAULT now(),
				updated_at timestamptz NOT NULL DEFAULT now(),
				snapshot jsonb NOT NULL,
				life integer NOT NULL DEFAULT 1,
				status text NOT NULL DEFAULT 'enqueued',
				stop_requested boolean NOT NULL DEFAULT false,
				in_doubt text NOT NULL DEFAULT 'stop',
				result jsonb
			)`,
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.journal (
				seq bigserial PRIMARY KEY,
				run_id text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
				type text NOT NULL,
				path text,
				final boolean NOT NULL DEFAULT false,
				executor text,
				entry jsonb NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS journal_run ON ${SCHEMA}.journal (run_id, seq)`,
			`CREATE UNIQUE INDEX IF NOT EXISTS journal_final_end ON ${SCHEMA}.journal (run_id, path)
				WHERE type = 'visit_end' AND final`,
			`CREATE UNIQUE INDEX IF NOT EXISTS journal_frozen ON ${SCHEMA}.journal (run_id, path) WHERE type = 'map_items'`,
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.events (
				seq bigserial PRIMARY KEY,
				run_id text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
				event jsonb NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS events_run ON ${SCHEMA}.events (run_id, seq)`,
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.workers (
				executor_id text PRIMARY KEY,
				host text NOT NULL,
				pid integer NOT NULL,
				started_at timestamptz NOT NULL DEFAULT now(),
				last_seen timestamptz NOT NULL DEFAULT now(),
				taken_by text,
				taken_at timestamptz
			)`,
		],
	},
	{
		// Questions of runs started with a person following (src/distributed/questions.ts): one row per ask visit
		// of a life, so a visit run again after a takeover finds its question, and its answer is given once.
		version: 3,
		sql: [
			`CREATE TABLE IF NOT EXISTS ${SCHEMA}.questions (
				run_id text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
				life integer NOT NULL,
				path text NOT NULL,
				card jsonb NOT NULL,
				answer jsonb,
				asked_at timestamptz NOT NULL DEFAULT now(),
				answered_at timestamptz,
				PRIMARY KEY (run_id, life, path)
			)`,
			`ALTER TABLE ${SCHEMA}.runs ADD COLUMN IF NOT EXISTS followed_at timestamptz`,
		],
	},
];

/** The schema version this pi-flows writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The DBOS system-schema version of the DBOS this package ships (`@dbos-inc/dbos-sdk` 5.3.0: 123 entries in
 * its `allMigrations()`, the number it stores in `dbos.dbos_migrations`). A database ahead of it was migrated
 * by a newer DBOS, which means a newer pi-flows. Bump with DBOS; the backend's tests compare it.
 */
export const DBOS_SCHEMA_VERSION = 123;

/** The advisory lock every migration holds: the first 8 bytes of SHA-256 of a name of our own. */
export const MIGRATION_LOCK_KEY: bigint = createHash("sha256").update("pi-flows.migrate").digest().readBigInt64BE(0);

/** How long a worker waits for another's migration before giving up with a message. */
export const MIGRATION_LOCK_TIMEOUT_MS = 120_000;

/** What a database holds, read before and after migrating. */
export interface SchemaState {
	/** pi-flows' schema version; 0 for a database pi-flows never touched. */
	piFlows: number;
	/** The pi-flows release that last migrated it, when recorded. */
	writtenBy?: string;
	/** DBOS's system-schema version; 0 when DBOS never ran there. */
	dbos: number;
}

/** This package's version, for the record a migration leaves and the message a newer database gets. */
export function packageVersion(): string {
	try {
		return (
			(JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: string }).version ?? "?"
		);
	} catch {
		return "?";
	}
}

async function tableExists(client: PoolClient, schema: string, table: string): Promise<boolean> {
	const found = await client.query(
		"SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2",
		[schema, table],
	);
	return (found.rowCount ?? 0) > 0;
}

/** Reads both versions on a connection; a `pi_flows.meta` of another shape is a schema fault. */
async function readState(client: PoolClient, db: Database): Promise<SchemaState> {
	let piFlows = 0;
	let writtenBy: string | undefined;
	if (await tableExists(client, SCHEMA, "meta")) {
		let rows: { key: string; value: string }[];
		try {
			rows = (await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${SCHEMA}.meta`)).rows;
		} catch {
			throw notOurs(db);
		}
		const version = rows.find((r) => r.key === "schema_version")?.value;
		if (version === undefined || !/^\d+$/.test(version)) throw notOurs(db);
		piFlows = Number(version);
		writtenBy = rows.find((r) => r.key === "written_by")?.value;
	}
	let dbos = 0;
	if (await tableExists(client, "dbos", "dbos_migrations")) {
		const row = (
			await client.query<{ version: string }>("SELECT max(version)::text AS version FROM dbos.dbos_migrations")
		).rows[0];
		dbos = Number(row?.version ?? 0);
	}
	return { piFlows, ...(writtenBy ? { writtenBy } : {}), dbos };
}

function notOurs(db: Database): DatabaseFault {
	return new DatabaseFault(
		databaseFailure(
			"database-schema",
			`${describeTarget(db.target)} has a ${SCHEMA}.meta table pi-flows did not make (no schema_version in it)`,
			"point pi-flows at a database of its own, or drop that table if it is a leftover",
			{ target: db.target.url },
		),
	);
}

/** The refusal of a database ahead of this pi-flows or its DBOS, or undefined when it is not ahead. */
function aheadOf(state: SchemaState, db: Database, dbosKnown: number): DatabaseFault | undefined {
	const where = describeTarget(db.target);
	if (state.piFlows > SCHEMA_VERSION) {
		const by = state.writtenBy ? `pi-flows ${state.writtenBy}` : "a newer pi-flows";
		return new DatabaseFault(
			databaseFailure(
				"database-schema",
				`${where} was set up by ${by} (pi-flows schema ${state.piFlows}); this is pi-flows ${packageVersion()}, which knows schema ${SCHEMA_VERSION}`,
				`upgrade pi-flows on this machine${state.writtenBy ? ` to ${state.writtenBy} or later` : ""}: every worker and client of one database runs the same version`,
				{ target: db.target.url },
			),
		);
	}
	if (state.dbos > dbosKnown) {
		return new DatabaseFault(
			databaseFailure(
				"database-schema",
				`${where} was migrated by a newer DBOS (system schema ${state.dbos}; this pi-flows' DBOS knows ${dbosKnown})`,
				"upgrade pi-flows on this machine to the version the other workers run: every worker and client of one database runs the same version",
				{ target: db.target.url },
			),
		);
	}
	return undefined;
}

/**
 * Takes the migration lock, waiting up to `timeoutMs`. It polls `pg_try_advisory_lock` rather than blocking in
 * `pg_advisory_lock`: a session blocked in a statement holds a snapshot, and DBOS's migrations build indexes
 * `CONCURRENTLY`, which wait for every older snapshot to end, so a blocked waiter and the lock's holder would
 * wait for each other forever (seen in the test of two workers migrating DBOS at once). Resolves false when
 * the time ran out. Whoever takes it releases it ({@link releaseMigrationLock}) on the same connection.
 */
export async function takeMigrationLock(client: ClientBase, timeoutMs = MIGRATION_LOCK_TIMEOUT_MS): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
		const got = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
			MIGRATION_LOCK_KEY.toString(),
		]);
		if (got.rows[0]?.locked) return true;
		if (Date.now() >= deadline) return false;
		await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
	}
}

/** Releases the lock {@link takeMigrationLock} took on this connection; a broken connection released it already. */
export async function releaseMigrationLock(client: ClientBase): Promise<void> {
	await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]).catch(() => {});
}

/** Options of {@link migrate} and {@link checkSchema}. */
export interface SchemaOptions {
	/**
	 * More migration to run under the same lock once pi-flows' tables are current: the backend passes DBOS's
	 * (`DBOS.migrate(url)`), so two workers never migrate DBOS's schema at once either.
	 */
	also?: () => Promise<void>;
	/** The DBOS system-schema version this process knows. Default {@link DBOS_SCHEMA_VERSION}. */
	dbosKnown?: number;
	/** How long to wait for another process's migration. Default {@link MIGRATION_LOCK_TIMEOUT_MS}. */
	lockTimeoutMs?: number;
}

/**
 * Brings the database to this pi-flows' schema, once, however many processes call it at the same moment: they
 * queue on an advisory lock, and each applies only what is missing. A database ahead of this version is
 * refused before anything changes. Resolves with the state after.
 */
export async function migrate(db: Database, options: SchemaOptions = {}): Promise<DatabaseResult<SchemaState>> {
	const dbosKnown = options.dbosKnown ?? DBOS_SCHEMA_VERSION;
	const lockTimeout = options.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS;
	return db.withClient(async (client) => {
		if (!(await takeMigrationLock(client, lockTimeout))) {
			throw new DatabaseFault(
				databaseFailure(
					"database-error",
					`another process has been migrating ${describeTarget(db.target)} for over ${Math.round(lockTimeout / 1000)} s`,
					"wait for it, or find it in pg_stat_activity (application_name pi-flows) and end it if it hangs",
					{ target: db.target.url },
				),
			);
		}
		try {
			const before = await readState(client, db);
			const ahead = aheadOf(before, db, dbosKnown);
			if (ahead) throw ahead;
			if (before.piFlows < SCHEMA_VERSION) {
				await client.query("BEGIN");
				try {
					for (const m of MIGRATIONS.filter((m) => m.version > before.piFlows)) {
						for (const statement of m.sql) await client.query(statement);
					}
					const upsert = `INSERT INTO ${SCHEMA}.meta (key, value) VALUES ($1, $2)
						ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
					await client.query(upsert, ["schema_version", String(SCHEMA_VERSION)]);
					await client.query(upsert, ["written_by", packageVersion()]);
					await client.query("COMMIT");
				} catch (error) {
					await client.query("ROLLBACK").catch(() => {});
					throw error;
				}
			}
			if (options.also) await options.also();
			return await readState(client, db);
		} finally {
			await releaseMigrationLock(client);
		}
	});
}

/**
 * Reads the versions without changing anything, for processes that only enqueue or list (`pi-flows run
 * --backend dbos`, `pi-flows runs`): a database ahead of this pi-flows is refused, and one behind (or empty)
 * is reported with the command that migrates it.
 */
export async function checkSchema(db: Database, options: SchemaOptions = {}): Promise<DatabaseResult<SchemaState>> {
	const dbosKnown = options.dbosKnown ?? DBOS_SCHEMA_VERSION;
	return db.withClient(async (client) => {
		const state = await readState(client, db);
		const ahead = aheadOf(state, db, dbosKnown);
		if (ahead) throw ahead;
		if (state.piFlows < SCHEMA_VERSION) {
			const what = state.piFlows === 0 ? "has no pi-flows tables yet" : `is at pi-flows schema ${state.piFlows}`;
			throw new DatabaseFault(
				databaseFailure(
					"database-schema",
					`${describeTarget(db.target)} ${what}; this pi-flows needs schema ${SCHEMA_VERSION}`,
					"start a worker on it first (pi-flows worker --database ...), which sets it up",
					{ target: db.target.url },
				),
			);
		}
		return state;
	});
}

/** Options of {@link prepareDatabase}. */
export interface PrepareOptions extends OpenOptions, SchemaOptions {
	/** Bring the schemas up to date (a worker); false only checks them (a client that enqueues or lists). */
	migrate: boolean;
	/** The environment `PI_FLOWS_DATABASE_URL` is read from. Default `process.env`. */
	env?: NodeJS.ProcessEnv;
}

/**
 * Everything a command does before it uses the database, in order, stopping at the first failure: the URL
 * from `--database` or `PI_FLOWS_DATABASE_URL`, read and checked; a connection proven; the schemas migrated
 * (a worker) or checked (a client). The caller closes the database it gets back.
 */
export async function prepareDatabase(
	flag: string | undefined,
	options: PrepareOptions,
): Promise<DatabaseResult<{ db: Database; schema: SchemaState }>> {
	const target = parseDatabaseUrl(resolveDatabaseUrl(flag, options.env));
	if (!target.ok) return target;
	const opened = await openDatabase(target.value, options);
	if (!opened.ok) return opened;
	const schema = options.migrate ? await migrate(opened.value, options) : await checkSchema(opened.value, options);
	if (!schema.ok) {
		await opened.value.close();
		return schema;
	}
	return { ok: true, value: { db: opened.value, schema: schema.value } };
}
