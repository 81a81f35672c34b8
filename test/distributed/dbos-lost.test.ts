import { afterAll, beforeAll, expect, it } from "vitest";
import { DatabaseFault } from "../../src/distributed/database.ts";
import { rememberSecret } from "../../src/secrets/index.ts";
import { migrateDatabase } from "../../src/distributed/worker.ts";
import { RunStore } from "../../src/distributed/store.ts";
import { cliChild } from "../helpers/kill.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { expectEachEndedOnceOk, fanFlow, runFan, whenMapUnderWay } from "./fan.ts";
import { startWorker as spawnWorker, type WorkerProcess } from "../helpers/workers.ts";

const ITEMS = 10;
/** The victim's password: searched for in everything every process printed. */
const CANARY = "canary-Pw-5f3e1d9c";
const VICTIM_ROLE = "victim_worker";

const FAN = fanFlow(ITEMS);

const SCRIPT = `turns:
  work:
    - say: "done with {{section:item|lines:1}}"
      delay: 700
  sum:
    - say: "all done: {{section:items|lines:2}}"
`;

/**
 * The same, with a second answer for each item's turn: a turn whose record could not be kept runs again
 * (at-least-once turns), on the same pi host when its map's coordinator takes the item back, and the
 * scripted model counts a visit's requests per host as a provider's session would.
 */
const TWICE = `turns:
  work:
    - say: "done with {{section:item|lines:1}}"
      delay: 700
    - say: "done with {{section:item|lines:1}}"
  sum:
    - say: "all done: {{section:items|lines:2}}"
`;

/** A worker of two slots on `url` (given in the environment), declared dead after 4 s of silence. */
function startWorker(project: TempProject, url: string, extra: string[] = []): WorkerProcess {
	return spawnWorker(project, ["--project", "--slots", "2", "--dead-after-ms", "4000", ...extra], {
		PI_FLOWS_DATABASE_URL: url,
	});
}

describePostgres("a worker that loses its database connection mid-visit", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/fan.md", FAN);
		project.write("slow.yaml", SCRIPT);
		project.write("twice.yaml", TWICE);
	});
	afterAll(() => project?.cleanup());

	it("says so without its password, reconnects, and every item is recorded exactly once", async () => {
		const url = await pg().database();
		await pg().sql(`CREATE ROLE ${VICTIM_ROLE} LOGIN SUPERUSER PASSWORD '${CANARY}'`);
		const victimUrl = url.replace(/\/\/[^@]*@/, `//${VICTIM_ROLE}:${CANARY}@`);
		const b = startWorker(project, url);
		const survivor = await b.executor;
		const a = startWorker(project, victimUrl);
		const victim = await a.executor;
		const store = new RunStore(url, 2);
		try {
			const client = runFan(project, url, "slow.yaml");
			// Cut every connection of the victim while it has an item's turn in flight and some items have ended,
			// twice, a little apart: the pool's fresh connections are cut too, as in a flapping network.
			await whenMapUnderWay(store, () => `${a.log()}\n${b.log()}`, victim);
			let cuts = 0;
			for (let i = 0; i < 2; i++) {
				const out = await pg().sql(
					`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = '${VICTIM_ROLE}'`,
				);
				cuts += Number(/\d+/.exec(out)?.[0] ?? 0);
				await new Promise((res) => setTimeout(res, 300));
			}
			expect(cuts, "the victim had connections to cut").toBeGreaterThan(0);
			const done = await client;
			expect(done.status, `${done.stderr}\n--- victim:\n${a.log()}\n--- survivor:\n${b.log()}`).toBe(0);
			expect(done.stdout).toContain("all done");
			const id = (await store.runs())[0]?.id as string;
			expect((await store.run(id))?.status).toBe("ok");
			await expectEachEndedOnceOk(store, id, ITEMS);
			// The victim said what happened, naming the database and what to check, and carried on.
			const said = a.log();
			expect(said).toMatch(/database-lost: the connection to the database at 127\.0\.0\.1:\d+\/\w+ was lost/);
			expect(said).toMatch(/retrying|reconnect/i);
			expect(a.child.exitCode, said).toBeNull();
			// No password in anything any process printed.
			for (const text of [said, b.log(), done.stdout, done.stderr]) {
				expect(text).not.toContain(CANARY);
				expect(text).not.toContain(pg().password);
			}
			console.log(`cut ${cuts} connection(s) of ${victim}; survivor ${survivor}`);
		} finally {
			await store.close();
		}
	}, 240_000);
	it("a Postgres restart mid-map: workers and the following client reconnect, nothing recorded twice", async () => {
		const url = await pg().database();
		const a = startWorker(project, url);
		await a.executor;
		const b = startWorker(project, url);
		await b.executor;
		const store = new RunStore(url, 2);
		try {
			const client = runFan(project, url, "slow.yaml");
			await whenMapUnderWay(store, () => `${a.log()}\n${b.log()}`);
			// Every connection of every process drops, and for the restart's length none is accepted.
			await pg().restart();
			const done = await client;
			expect(done.status, `${done.stderr}\n--- a:\n${a.log()}\n--- b:\n${b.log()}`).toBe(0);
			expect(done.stdout).toContain("all done");
			const id = (await store.runs())[0]?.id as string;
			await expectEachEndedOnceOk(store, id, ITEMS);
			for (const w of [a, b]) expect(w.child.exitCode, w.log()).toBeNull();
			for (const text of [a.log(), b.log(), done.stdout, done.stderr]) expect(text).not.toContain(pg().password);
		} finally {
			await store.close();
		}
	}, 240_000);

	it("a database gone past the workers' bound: the writes fail clearly, and the run still ends recorded once", async () => {
		const url = await pg().database();
		const a = startWorker(project, url, ["--retry-for-ms", "1000"]);
		await a.executor;
		const b = startWorker(project, url, ["--retry-for-ms", "1000"]);
		await b.executor;
		const store = new RunStore(url, 2);
		try {
			const client = runFan(project, url, "twice.yaml");
			await whenMapUnderWay(store, () => `${a.log()}\n${b.log()}`);
			// Down for three times the workers' bound: every write in flight gives up.
			await pg().halt();
			await new Promise((res) => setTimeout(res, 3000));
			await pg().start();
			const done = await client;
			const logs = `${done.stderr}\n--- a:\n${a.log()}\n--- b:\n${b.log()}`;
			const id = (await store.runs())[0]?.id as string;
			if (done.status !== 0) {
				// The run could not go on: it says why, and a resume completes it.
				expect(done.stderr, logs).toMatch(/database/);
				const resumed = await cliChild(project, ["resume", id, "--database", url]);
				expect(resumed.status, `${resumed.stderr}\n${logs}`).toBe(0);
				expect(resumed.stdout).toContain("all done");
			} else expect(done.stdout).toContain("all done");
			console.log(`past the bound: the first life ${done.status === 0 ? "completed" : "failed, a resume completed"}`);
			expect(`${a.log()}${b.log()}`).toMatch(/database-lost: .*gave up after \d+ attempts/);
			// Each visit has one standing end, ok; a life that failed may have left failed ends of its own before it.
			const finals = await store.query<{ path: string; n: number; ok: number }>(
				`SELECT path, count(*)::int AS n, count(*) FILTER (WHERE (entry->'ended'->>'ok')::boolean)::int AS ok
				 FROM pi_flows.journal WHERE run_id = $1 AND type = 'visit_end' AND final GROUP BY path`,
				[id],
			);
			const standing = new Map(finals.rows.map((r) => [r.path, r]));
			for (const path of [...Array.from({ length: ITEMS }, (_, i) => `items[${i + 1}]/work`), "items", "sum"]) {
				expect(standing.get(path)?.n, path).toBe(1);
				expect(standing.get(path)?.ok, path).toBe(1);
			}
			for (const text of [a.log(), b.log(), done.stdout, done.stderr]) expect(text).not.toContain(pg().password);
		} finally {
			await store.close();
		}
	}, 240_000);

	it("the store retries a query whose connection was cut, and says so", async () => {
		const url = await pg().database();
		await migrateDatabase(url);
		const lines: string[] = [];
		const store = new RunStore(url, 2, { log: (line) => lines.push(line) });
		try {
			const slow = store.query("SELECT pg_sleep(1.5) AS slept");
			for (let cut = 0; !cut; ) {
				const out = await pg().sql(
					"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(1.5)%'",
				);
				cut = Number(/\d+/.exec(out)?.[0] ?? 0);
				if (!cut) await new Promise((res) => setTimeout(res, 20));
			}
			const r = await slow;
			expect(r.rows).toHaveLength(1);
			expect(lines.join("\n")).toMatch(/database-lost: the connection to the database at .+ was lost/);
			expect(lines.join("\n")).toMatch(/retrying in \d+ ms, attempt 2/);
			expect(lines.join("\n")).toContain("check the server's log and the network");
		} finally {
			await store.close();
		}
	}, 60_000);

	it("a connection lost for longer than the bound fails with database-lost, no password in it", async () => {
		const url = await pg().database();
		await migrateDatabase(url);
		rememberSecret(pg().password);
		const lines: string[] = [];
		const store = new RunStore(url, 2, { log: (line) => lines.push(line), retryForMs: 1500 });
		try {
			await store.runs();
			await pg().halt();
			const error = await store.runs().then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(DatabaseFault);
			const fault = error as DatabaseFault;
			expect(fault.code).toBe("database-lost");
			expect(fault.message).toContain("127.0.0.1");
			expect(lines.at(-1)).toMatch(/gave up after \d+ attempts/);
			for (const text of [fault.message, fault.hint, String(fault.stack), ...lines])
				expect(text).not.toContain(pg().password);
		} finally {
			await pg().start();
			await store.close();
		}
	}, 60_000);
});
