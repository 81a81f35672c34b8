/**
 * The throwaway Postgres the distributed tests stand on: it listens on 127.0.0.1 only, wants its password,
 * hands out separate databases, survives a restart, and leaves nothing behind when stopped.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/package/root.ts";
import { describePostgres, findPostgres, startPostgres } from "../helpers/postgres.ts";

function canConnect(port: number, host: string): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = createConnection({ port, host });
		socket.once("connect", () => {
			socket.destroy();
			resolve(true);
		});
		socket.once("error", () => resolve(false));
	});
}

describePostgres("throwaway Postgres for tests", (pg) => {
	it("serves SQL on 127.0.0.1 with the password in its URL", async () => {
		const url = new URL(pg().url);
		expect(url.hostname).toBe("127.0.0.1");
		expect(Number(url.port)).toBe(pg().port);
		expect(decodeURIComponent(url.password)).toBe(pg().password);
		expect((await pg().sql("SELECT 1 + 1")).trim()).toBe("2");
		expect((await pg().sql("SHOW listen_addresses")).trim()).toBe("127.0.0.1");
		expect((await pg().sql("SHOW password_encryption")).trim()).toBe("scram-sha-256");
	});

	it("refuses a wrong password", () => {
		const found = findPostgres();
		if ("skip" in found) throw new Error(found.skip);
		const args = ["-h", "127.0.0.1", "-p", String(pg().port), "-U", pg().user, "-d", "postgres", "-c", "SELECT 1"];
		const ran = spawnSync(join(found.bin, "psql"), args, {
			encoding: "utf8",
			env: { ...process.env, PGPASSWORD: "not-the-password" },
		});
		expect(ran.status).not.toBe(0);
		expect(ran.stderr).toMatch(/password authentication failed/);
	});

	it("hands out databases that do not share tables", async () => {
		const a = new URL(await pg().database()).pathname.slice(1);
		const b = new URL(await pg().database()).pathname.slice(1);
		expect(a).not.toBe(b);
		await pg().sql("CREATE TABLE only_in_a (x int)", a);
		await expect(pg().sql("SELECT * FROM only_in_a", b)).rejects.toThrow(/only_in_a/);
		expect((await pg().sql("SELECT count(*) FROM only_in_a", a)).trim()).toBe("0");
	});

	it("keeps its data across a restart, and is unreachable while halted", async () => {
		const db = new URL(await pg().database()).pathname.slice(1);
		await pg().sql("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)", db);
		await pg().restart();
		expect((await pg().sql("SELECT x FROM kept", db)).trim()).toBe("7");
		await pg().halt();
		expect(await canConnect(pg().port, "127.0.0.1")).toBe(false);
		await pg().start();
		expect((await pg().sql("SELECT x FROM kept", db)).trim()).toBe("7");
	});
});

describePostgres("a cluster's lifetime", () => {
	it("two clusters run side by side and stop leaves no server and no folder", async () => {
		const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith("pi-flows-pg-")));
		const [one, two] = await Promise.all([startPostgres(), startPostgres()]);
		if ("skip" in one || "skip" in two) throw new Error("Postgres vanished");
		expect(one.port).not.toBe(two.port);
		expect((await one.sql("SELECT 1")).trim()).toBe("1");
		expect((await two.sql("SELECT 1")).trim()).toBe("1");
		const made = readdirSync(tmpdir()).filter((f) => f.startsWith("pi-flows-pg-") && !before.has(f));
		expect(made).toHaveLength(2);
		await Promise.all([one.stop(), two.stop()]);
		await one.stop();
		expect(await canConnect(one.port, "127.0.0.1")).toBe(false);
		expect(await canConnect(two.port, "127.0.0.1")).toBe(false);
		for (const f of made) expect(existsSync(`${tmpdir()}/${f}`)).toBe(false);
	}, 120_000);
});

describe("a machine without Postgres", () => {
	it("is told how to get the tests to run", () => {
		const none = findPostgres({ env: { PATH: "/nonexistent" }, debianDir: "/nonexistent" });
		expect(none).toEqual({ skip: expect.stringContaining("apt-get install postgresql") });
		expect("skip" in none && none.skip).toMatch(/\.ci\/run/);
		const wrong = findPostgres({ env: { PI_FLOWS_PG_BIN: "/nonexistent" } });
		expect(wrong).toEqual({ skip: "PI_FLOWS_PG_BIN=/nonexistent has no initdb" });
	});
});

describePostgres("a test process killed with its cluster running", () => {
	it("leaves a cluster the next start stops and deletes", async () => {
		const helper = join(PACKAGE_ROOT, "test/helpers/pg-cluster.ts");
		const child = spawn(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`const m = await import(${JSON.stringify(helper)}); const pg = await m.startPostgres();` +
					"console.log(JSON.stringify({ port: pg.port })); setInterval(() => {}, 1000);",
			],
			{ stdio: ["ignore", "pipe", "inherit"] },
		);
		const port = await new Promise<number>((resolve, reject) => {
			let out = "";
			child.stdout.on("data", (d) => {
				out += d;
				const m = /"port":(\d+)/.exec(out);
				if (m) resolve(Number(m[1]));
			});
			child.once("exit", (code) => reject(new Error(`the child exited (${code}) before its cluster started`)));
		});
		const folders = () => readdirSync(tmpdir()).filter((f) => f.startsWith("pi-flows-pg-"));
		const ownedBy = (f: string) => {
			const file = join(tmpdir(), f, "owner.pid");
			return existsSync(file) ? readFileSync(file, "utf8") : "";
		};
		const orphan = folders().find((f) => ownedBy(f) === String(child.pid));
		expect(orphan).toBeDefined();
		expect(await canConnect(port, "127.0.0.1")).toBe(true);
		child.kill("SIGKILL");
		await new Promise((resolve) => child.once("exit", resolve));
		// Killed: its exit hook never ran, so its server still answers.
		expect(await canConnect(port, "127.0.0.1")).toBe(true);
		const next = await startPostgres();
		if ("skip" in next) throw new Error(next.skip);
		await next.stop();
		expect(folders()).not.toContain(orphan);
		for (let i = 0; i < 100 && (await canConnect(port, "127.0.0.1")); i++) await new Promise((r) => setTimeout(r, 50));
		expect(await canConnect(port, "127.0.0.1")).toBe(false);
	}, 120_000);
});
