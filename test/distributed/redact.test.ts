/**
 * No password leaves the database layer: redaction of URLs, libpq and JSON spellings, and of passwords seen
 * once and echoed later in text with no URL around them; and a URL's faults quote it masked.
 */
import { describe, expect, it } from "vitest";
import {
	DATABASE_URL_ENV,
	DatabaseFault,
	MASK,
	parseDatabaseUrl,
	redact,
	redactError,
	redactUrl,
	rememberSecret,
	resolveDatabaseUrl,
} from "../../src/distributed/index.ts";

const CANARY = "Canary-Pw-7f3e9a";

function leaks(value: unknown, secret = CANARY): boolean {
	const texts = [JSON.stringify(value), String(value)];
	if (value instanceof Error) texts.push(value.stack ?? "", value.message);
	return texts.some((t) => t.includes(secret) || t.includes(encodeURIComponent(secret)));
}

describe("redact", () => {
	it("masks a URL's password, whatever it is, and keeps user, host, port and database", () => {
		expect(redact("connect to postgres://alice:hunter2@db.example:6543/runs failed")).toBe(
			`connect to postgres://alice:${MASK}@db.example:6543/runs failed`,
		);
		expect(redactUrl("postgresql://bob:p%40ss@10.0.0.1/x?sslmode=require")).toBe(
			`postgresql://bob:${MASK}@10.0.0.1/x?sslmode=require`,
		);
		// A raw @ in a password (not percent-encoded): masked to the last @ of the token.
		expect(redact("postgres://carol:a@b@host/db")).toBe(`postgres://carol:${MASK}@host/db`);
		expect(redact("postgres://dave@host/db")).toBe("postgres://dave@host/db");
	});

	it("masks libpq, environment and JSON spellings of a password", () => {
		expect(redact("host=h port=5432 password=s3cr3t dbname=x")).toBe(`host=h port=5432 password=${MASK} dbname=x`);
		expect(redact("PGPASSWORD=s3cr3t psql")).toBe(`PGPASSWORD=${MASK} psql`);
		expect(redact('{"user":"u","password":"s3cr3t"}')).toBe(`{"user":"u","password":"${MASK}"}`);
		expect(redact("password: 's3 cr3t' ok")).toBe(`password: '${MASK}' ok`);
	});

	it("cuts a remembered password out of any text, in every spelling", () => {
		const pw = "Zq/9 x@y";
		rememberSecret(pw);
		expect(redact(`server said: bad thing near "${pw}"`)).not.toContain(pw);
		expect(redact(`echo ${encodeURIComponent(pw)}`)).toBe(`echo ${MASK}`);
	});

	it("keeps a short password out of ordinary words but not out of a URL", () => {
		rememberSecret("ab1");
		expect(redact("tab1 is fine")).toBe("tab1 is fine");
		expect(redact("postgres://u:ab1@h/d")).toBe(`postgres://u:${MASK}@h/d`);
	});

	it("turns any thrown value into redacted text", () => {
		const error = Object.assign(new Error(`getaddrinfo ENOTFOUND postgres://u:${CANARY}@nowhere/db`), {
			code: "ENOTFOUND",
		});
		const text = redactError(error);
		expect(text).toContain("ENOTFOUND");
		expect(text).not.toContain(CANARY);
		expect(redactError(`password=${CANARY}`)).not.toContain(CANARY);
	});
});

describe("a database URL", () => {
	it("is read into host, port, user and database, and shown masked", () => {
		const read = parseDatabaseUrl(`postgres://alice:${encodeURIComponent(CANARY)}@db.internal:6543/pi_runs`);
		expect(read.ok).toBe(true);
		if (!read.ok) return;
		expect(read.value).toMatchObject({ host: "db.internal", port: 6543, user: "alice", database: "pi_runs" });
		expect(read.value.shown).toBe(`postgres://alice:${MASK}@db.internal:6543/pi_runs`);
		// Once parsed, the password is cut from any later text.
		expect(redact(`auth failed for ${CANARY}`)).not.toContain(CANARY);
	});

	it("defaults the port to 5432 and accepts postgresql://", () => {
		const read = parseDatabaseUrl("postgresql://h/db");
		expect(read.ok && read.value.port).toBe(5432);
	});

	it.each([
		["", /no database given/],
		["mysql://u:Canary-Pw-7f3e9a@h/db", /not a Postgres URL/],
		["postgres://u:Canary-Pw-7f3e9a@h", /names no database/],
		["postgres://u:Canary-Pw-7f3e9a@h:notaport/db", /is not a URL/],
		["u:Canary-Pw-7f3e9a@h/db", /is not a URL|not a Postgres URL/],
	])("%j is refused as database-url, with the password masked", (url, message) => {
		const read = parseDatabaseUrl(url);
		expect(read.ok).toBe(false);
		if (read.ok) return;
		expect(read.code).toBe("database-url");
		expect(read.message).toMatch(message);
		expect(read.hint).toMatch(/postgres:\/\/USER:PASSWORD@HOST:PORT\/DATABASE/);
		expect(leaks(read)).toBe(false);
		expect(leaks(new DatabaseFault(read))).toBe(false);
	});

	it("comes from --database, else from the environment", () => {
		expect(resolveDatabaseUrl("postgres://a/b", { [DATABASE_URL_ENV]: "postgres://c/d" })).toBe("postgres://a/b");
		expect(resolveDatabaseUrl(undefined, { [DATABASE_URL_ENV]: " postgres://c/d " })).toBe("postgres://c/d");
		expect(resolveDatabaseUrl(undefined, {})).toBeUndefined();
	});
});
