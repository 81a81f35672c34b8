/**
 * The run store on a real Postgres, where a row's `seq` is taken at insert and the row is seen at commit.
 * An append takes its run's lock before its rows take their `seq`s, so a run's rows are numbered in the
 * order they become visible: a follower reading past the highest `seq` it has read misses none, even with
 * two workers appending to the run at once.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prepareDatabase } from "../../src/distributed/index.ts";
import { APPEND_LOCK, eventsInsert, journalInsert, RunStore } from "../../src/distributed/store.ts";
import type { JournalEntry, Snapshot } from "../../src/runs/index.ts";
import { describePostgres } from "../helpers/postgres.ts";

const note = (text: string) => ({ type: "note", text }) as unknown as JournalEntry;
/** Whether a promise is still pending after the database had time to run what it could. */
const pending = async (p: Promise<unknown>) =>
	(await Promise.race([p.then(() => false), new Promise((r) => setTimeout(() => r(true), 300))])) as boolean;

describePostgres("the run store", (postgres) => {
	let store: RunStore;
	let slow: pg.Client;
	let look: pg.Client;
	beforeAll(async () => {
		const url = await postgres().database();
		const ready = await prepareDatabase(url, { migrate: true, env: {} });
		if (!ready.ok) throw new Error(ready.message);
		await ready.value.db.close();
		store = new RunStore(url, 5);
		slow = new pg.Client({ connectionString: url });
		look = new pg.Client({ connectionString: url });
		await Promise.all([slow.connect(), look.connect()]);
		for (const id of ["r1", "r2"]) await store.createRun(id, { flow: { name: "t" } } as unknown as Snapshot);
	});
	afterAll(async () => {
		await slow?.end();
		await look?.end();
		await store?.close();
	});

	const lastSeq = async (table: "journal" | "events") =>
		Number((await look.query(`SELECT last_value FROM pi_flows.${table}_seq_seq`)).rows[0].last_value);

	it("numbers a run's rows in the order they become visible, with two workers appending at once", async () => {
		await store.appendEvents("r1", [{ type: "first" }]);
		await store.append("r1", [note("first")], "w1");
		const events = (await store.eventsAfter("r1", 0)).at(-1)?.seq ?? 0;
		const journal = await lastSeq("journal");

		// One worker's append has taken its seqs and not committed; another's, for the same run, waits for it.
		await slow.query("BEGIN");
		const e = eventsInsert("r1", [{ type: "slow" }]);
		await slow.query(e.text, e.values);
		const j = journalInsert("r1", [note("slow")], "w1");
		await slow.query(j.text, j.values);
		const quickEvents = store.appendEvents("r1", [{ type: "quick" }]);
		const quickJournal = store.append("r1", [note("quick")], "w2");
		expect(await pending(quickEvents)).toBe(true);
		expect(await pending(quickJournal)).toBe(true);
		expect(await store.eventsAfter("r1", events)).toEqual([]);
		// Another run's appends do not wait.
		await store.appendEvents("r2", [{ type: "elsewhere" }]);
		await slow.query("COMMIT");
		await Promise.all([quickEvents, quickJournal]);

		expect((await store.eventsAfter("r1", events)).map((x) => x.event.type)).toEqual(["slow", "quick"]);
		const texts = (await store.entries("r1")).map((x) => (x as unknown as { text: string }).text);
		expect(texts).toEqual(["first", "slow", "quick"]);
		expect(await lastSeq("journal")).toBe(journal + 2);
	});

	it("takes the lock before its rows take their seqs", async () => {
		// A lock held with no row taken: an append waiting for it has not moved the sequence.
		await slow.query("BEGIN");
		await slow.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [APPEND_LOCK.events, "r1"]);
		const before = await lastSeq("events");
		const waiting = store.appendEvents("r1", [{ type: "late" }]);
		expect(await pending(waiting)).toBe(true);
		expect(await lastSeq("events")).toBe(before);
		await slow.query("COMMIT");
		await waiting;
		expect(await lastSeq("events")).toBe(before + 1);
	});

	it("drops a second standing end of a visit, under the lock as before", async () => {
		const end = {
			type: "visit_end",
			life: 1,
			path: "a",
			node: "a",
			kind: "agent",
			ended: { ok: true, value: "done" },
			at: "2026-12-06T00:00:00Z",
		} as unknown as JournalEntry;
		await store.append("r2", [end], "w1");
		await store.append("r2", [end], "w2");
		expect((await store.endCounts("r2")).get("a")).toBe(1);
	});
});
