/**
 * The database layer against a real Postgres: each way a connection fails comes back as its code with a
 * message naming what to fix and no password in it (a canary password is searched for in every message,
 * hint, JSON form, error string and stack), and migrations run once however many processes start together.
 */
import { createServer, type Server } from "node:net";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
	type Database,
	DatabaseFault,
	type DatabaseResult,
	type DatabaseTarget,
	DBOS_SCHEMA_VERSION,
	formatDatabaseFailure,
	MIGRATION_LOCK_KEY,
	migrate,
	checkSchema,
	openDatabase,
	packageVersion,
	prepareDatabase,
	parseDatabaseUrl,
	SCHEMA_VERSION,
} from "../../src/distributed/index.ts";
import { describePostgres } from "../helpers/postgres.ts";

const CANARY = "Canary-Pw-4b1d77";

function target(url: string): DatabaseTarget {
	const read = parseDatabaseUrl(url);
	if (!read.ok) throw new Error(read.message);
	return read.value;
}

/** Every form a failure reaches a person or a log in, searched for the canary. */
function expectNoCanary(result: DatabaseResult<unknown>): void {
	const forms: string[] = [JSON.stringify(result)];
	if (!result.ok) {
		const error = new DatabaseFault(result);
		forms.push(String(error), error.stack ?? "", JSON.stringify(error), result.message, result.hint);
	}
	for (const form of forms) {
		expect(form).not.toContain(CANARY);
		expect(form).not.toContain(encodeURIComponent(CANARY));
	}
}

function failed<T>(result: DatabaseResult<T>): Exclude<DatabaseResult<T>, { ok: true }> {
	if (result.ok) throw new Error("expected a failure");
	return result;
}

const opened: Database[] = [];
async function open(url: string, options = {}): Promise<DatabaseResult<Database>> {
	const result = await openDatabase(target(url), options);
	if (result.ok) opened.push(result.value);
	return result;
}
afterEach(async () => {
	await Promise.all(opened.splice(0).map((db) => db.close()));
});

function listen(server: Server): Promise<number> {
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			resolve(typeof address === "object" && address ? address.port : 0);
		}),
	);
}

describe("a database that does not answer (no Postgres needed)", () => {
	let silent: Server;
	let silentPort: number;
	let closedPort: number;
	beforeAll(async () => {
		// Accepts connections and never says a word: a firewall or a hung server.
		silent = createServer(() => {});
		silentPort = await listen(silent);
		const probe = createServer();
		closedPort = await listen(probe);
		await new Promise((resolve) => probe.close(resolve));
	});
	afterAll(() => {
		silent.close();
	});

	it("nothing listening: database-unreachable naming host and port, password masked", async () => {
		const result = failed(await open(`postgres://pi:${CANARY}@127.0.0.1:${closedPort}/runs`));
		expect(result.code).toBe("database-unreachable");
		expect(result.message).toContain(`127.0.0.1:${closedPort}`);
		expect(result.hint).toContain(`pg_isready -h 127.0.0.1 -p ${closedPort}`);
		expect(result.target).toBe(`postgres://pi:***@127.0.0.1:${closedPort}/runs`);
		expectNoCanary(result);
	});

	it("a server that never answers: database-unreachable after the connect timeout", async () => {
		const result = failed(
			await open(`postgres://pi:${CANARY}@127.0.0.1:${silentPort}/runs`, { connectTimeoutMs: 300 }),
		);
		expect(result.code).toBe("database-unreachable");
		expect(result.message).toMatch(/no answer within the connect timeout/);
		expectNoCanary(result);
	});
});

describePostgres("a real database", (pg) => {
	let base: URL;
	beforeAll(async () => {
		base = new URL(pg().url);
		await pg().sql(`CREATE ROLE canary LOGIN PASSWORD '${CANARY}'`);
		await pg().sql("CREATE ROLE nopriv LOGIN PASSWORD 'nopriv-pw'");
	});
	const urlAs = (user: string, password: string, database: string) =>
		`postgres://${user}:${encodeURIComponent(password)}@${base.host}/${database}`;

	it("opens with the right password and answers queries", async () => {
		const db = await open(await pg().database());
		expect(db.ok).toBe(true);
		if (!db.ok) return;
		const rows = await db.value.query<{ n: number }>("SELECT 41 + 1 AS n");
		expect(rows.ok && rows.value[0].n).toBe(42);
	});

	it("a wrong password: database-auth naming the user, no password anywhere", async () => {
		await pg().sql(`ALTER ROLE canary PASSWORD 'something-else'`);
		const result = failed(await open(urlAs("canary", CANARY, "postgres")));
		await pg().sql(`ALTER ROLE canary PASSWORD '${CANARY}'`);
		expect(result.code).toBe("database-auth");
		expect(result.message).toContain('user "canary"');
		expect(result.message).toContain(`127.0.0.1:${pg().port}`);
		expect(result.hint).toMatch(/password/);
		expect(result.cause).toBe("28P01");
		expectNoCanary(result);
	});

	it("no password at all: database-auth saying one is needed", async () => {
		const saved = process.env.PGPASSWORD;
		delete process.env.PGPASSWORD;
		const result = failed(await open(`postgres://canary@${base.host}/postgres`));
		if (saved !== undefined) process.env.PGPASSWORD = saved;
		expect(result.code).toBe("database-auth");
		expect(result.message).toMatch(/none was given/);
	});

	it("a missing database: database-missing naming it and how to create it; create: true makes it", async () => {
		const url = urlAs(pg().user, pg().password, "not_there_yet");
		const result = failed(await open(url));
		expect(result.code).toBe("database-missing");
		expect(result.message).toContain('"not_there_yet"');
		expect(result.hint).toContain("createdb");
		expectNoCanary(result);
		const made = await open(url, { create: true });
		expect(made.ok).toBe(true);
		const again = await open(url, { create: true });
		expect(again.ok).toBe(true);
	});

	it("TLS asked of a server without it: a message naming TLS and the URL's sslmode", async () => {
		const result = failed(await open(`${urlAs("canary", CANARY, "postgres")}?sslmode=require`));
		expect(result.code).toBe("database-error");
		expect(result.message).toMatch(/does not offer TLS/);
		expect(result.hint).toMatch(/sslmode/);
		expectNoCanary(result);
	});

	it("a user who may not create the schema: database-denied, not a crash", async () => {
		const name = new URL(await pg().database()).pathname.slice(1);
		await pg().sql(`REVOKE CREATE ON DATABASE ${name} FROM PUBLIC; GRANT CONNECT ON DATABASE ${name} TO nopriv`);
		const db = await open(urlAs("nopriv", "nopriv-pw", name));
		if (!db.ok) throw new Error(db.message);
		const result = failed(await migrate(db.value));
		expect(result.code).toBe("database-denied");
		expect(result.message).toContain('user "nopriv"');
	});

	it("prepareDatabase: a client is told to start a worker first, a worker sets the database up, then both work", async () => {
		const url = await pg().database();
		const env = { PI_FLOWS_DATABASE_URL: url };
		const client = failed(await prepareDatabase(undefined, { migrate: false, env }));
		expect(client.code).toBe("database-schema");
		expect(formatDatabaseFailure(client)).toMatch(/^pi-flows: database-schema: .*\n {2}start a worker on it first/);
		const worker = await prepareDatabase(undefined, { migrate: true, env });
		expect(worker).toMatchObject({ ok: true, value: { schema: { piFlows: SCHEMA_VERSION } } });
		if (worker.ok) opened.push(worker.value.db);
		const again = await prepareDatabase(undefined, { migrate: false, env });
		expect(again.ok).toBe(true);
		if (again.ok) opened.push(again.value.db);
		const noUrl = failed(await prepareDatabase(undefined, { migrate: false, env: {} }));
		expect(noUrl.code).toBe("database-url");
		const wrong = failed(await prepareDatabase(urlAs("canary", `${CANARY}x`, "postgres"), { migrate: true }));
		expect(wrong.code).toBe("database-auth");
		expect(formatDatabaseFailure(wrong)).not.toContain(CANARY);
	});

	describe("migrations", () => {
		it("set up a fresh database once, and a second run changes nothing", async () => {
			const url = await pg().database();
			const db = await open(url);
			if (!db.ok) throw new Error(db.message);
			expect(failed(await checkSchema(db.value)).message).toMatch(/no pi-flows tables yet/);
			const first = await migrate(db.value);
			expect(first).toEqual({ ok: true, value: { piFlows: SCHEMA_VERSION, writtenBy: packageVersion(), dbos: 0 } });
			const second = await migrate(db.value);
			expect(second).toEqual(first);
			expect((await checkSchema(db.value)).ok).toBe(true);
		});

		it("several workers migrating a fresh database at once (each on its own session) all succeed, one at a time", async () => {
			const url = await pg().database();
			const dbs = await Promise.all([1, 2, 3, 4].map(() => open(url)));
			let inside = 0;
			let most = 0;
			let ran = 0;
			// Stands for DBOS's own migration, which crashed a worker when two ran at once.
			const also = async () => {
				inside++;
				most = Math.max(most, inside);
				ran++;
				await new Promise((resolve) => setTimeout(resolve, 50));
				inside--;
			};
			const results = await Promise.all(
				dbs.map((db) => {
					if (!db.ok) throw new Error(db.message);
					return migrate(db.value, { also });
				}),
			);
			for (const r of results) expect(r).toMatchObject({ ok: true, value: { piFlows: SCHEMA_VERSION } });
			expect(ran).toBe(4);
			expect(most).toBe(1);
			const rows = await pg().sql(
				"SELECT value FROM pi_flows.meta WHERE key = 'schema_version'",
				new URL(url).pathname.slice(1),
			);
			expect(rows.trim()).toBe(String(SCHEMA_VERSION));
		});

		it("DBOS's own migration run through `also` by two workers at once: both succeed, once", async () => {
			const url = await pg().database();
			const dbs = await Promise.all([open(url), open(url)]);
			const results = await Promise.all(
				dbs.map((db) => {
					if (!db.ok) throw new Error(db.message);
					return migrate(db.value, { also: () => DBOS.migrate(url) });
				}),
			);
			for (const r of results) {
				expect(r).toMatchObject({ ok: true, value: { piFlows: SCHEMA_VERSION, dbos: DBOS_SCHEMA_VERSION } });
			}
			const db = dbs[0];
			if (db.ok) expect(await checkSchema(db.value)).toMatchObject({ ok: true, value: { dbos: DBOS_SCHEMA_VERSION } });
		}, 60_000);

		it("a migration held up by another past the lock timeout gives up with a message, changing nothing", async () => {
			const url = await pg().database();
			const [holder, waiter] = await Promise.all([open(url), open(url)]);
			if (!holder.ok || !waiter.ok) throw new Error("open failed");
			const held = await holder.value.withClient(async (client) => {
				await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
				const result = await migrate(waiter.value, { lockTimeoutMs: 300 });
				await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]);
				return result;
			});
			if (!held.ok) throw new Error(held.message);
			const f = failed(held.value);
			expect(f.message).toMatch(/another process has been migrating/);
			expect(failed(await checkSchema(waiter.value)).message).toMatch(/no pi-flows tables yet/);
		});

		it("a database set up by a newer pi-flows is refused with the version to upgrade to, and left as it was", async () => {
			const url = await pg().database();
			const name = new URL(url).pathname.slice(1);
			await pg().sql(
				"CREATE SCHEMA pi_flows; CREATE TABLE pi_flows.meta (key text PRIMARY KEY, value text NOT NULL);" +
					"INSERT INTO pi_flows.meta (key, value) VALUES ('schema_version', '99'), ('written_by', '9.9.9')",
				name,
			);
			const db = await open(url);
			if (!db.ok) throw new Error(db.message);
			for (const result of [await migrate(db.value), await checkSchema(db.value)]) {
				const f = failed(result);
				expect(f.code).toBe("database-schema");
				expect(f.message).toContain("pi-flows 9.9.9");
				expect(f.hint).toContain("to 9.9.9 or later");
			}
			expect((await pg().sql("SELECT value FROM pi_flows.meta WHERE key = 'schema_version'", name)).trim()).toBe("99");
		});

		it("a database migrated by a newer DBOS is refused", async () => {
			const url = await pg().database();
			await pg().sql(
				`CREATE SCHEMA dbos; CREATE TABLE dbos.dbos_migrations (version bigint PRIMARY KEY); INSERT INTO dbos.dbos_migrations VALUES (${DBOS_SCHEMA_VERSION + 1})`,
				new URL(url).pathname.slice(1),
			);
			const db = await open(url);
			if (!db.ok) throw new Error(db.message);
			const f = failed(await migrate(db.value));
			expect(f.code).toBe("database-schema");
			expect(f.message).toMatch(new RegExp(`newer DBOS \\(system schema ${DBOS_SCHEMA_VERSION + 1}`));
		});

		it("a pi_flows.meta table pi-flows did not make is refused", async () => {
			const url = await pg().database();
			await pg().sql("CREATE SCHEMA pi_flows; CREATE TABLE pi_flows.meta (x int)", new URL(url).pathname.slice(1));
			const db = await open(url);
			if (!db.ok) throw new Error(db.message);
			const f = failed(await migrate(db.value));
			expect(f.code).toBe("database-schema");
			expect(f.message).toMatch(/did not make/);
		});
	});

	describe("a connection lost while in use", () => {
		it("an ended session mid-transaction: database-lost, and the next query works", async () => {
			const db = await open(urlAs("canary", CANARY, "postgres"));
			if (!db.ok) throw new Error(db.message);
			const result = await db.value.withClient(async (client) => {
				await client.query("BEGIN");
				const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
				await pg().sql(`SELECT pg_terminate_backend(${pid})`);
				await client.query("SELECT 1");
				return "not reached";
			});
			const f = failed(result);
			expect(f.code).toBe("database-lost");
			expect(f.hint).toMatch(/runs again/);
			expectNoCanary(f);
			const after = await db.value.query("SELECT 1 AS one");
			expect(after.ok).toBe(true);
		});

		it("the server going away: queries fail as values, the process survives, and they work once it is back", async () => {
			const db = await open(urlAs("canary", CANARY, "postgres"));
			if (!db.ok) throw new Error(db.message);
			expect((await db.value.query("SELECT 1")).ok).toBe(true);
			await pg().halt();
			try {
				const during = failed(await db.value.query("SELECT 1"));
				expect(["database-lost"]).toContain(during.code);
				expect(during.message).toContain(`127.0.0.1:${pg().port}/postgres`);
				expectNoCanary(during);
			} finally {
				await pg().start();
			}
			// The idle connection's death was remembered, not thrown at the process.
			const lost = db.value.lost();
			if (lost) {
				expect(lost.code).toBe("database-lost");
				expectNoCanary(lost);
			}
			expect((await db.value.query("SELECT 1")).ok).toBe(true);
		});
	});
});
