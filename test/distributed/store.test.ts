/**
 * The run store on a real Postgres, where a row's `seq` is taken at insert and the row is seen at commit:
 * two workers appending at once can commit in the other order, and a follower of the journal or the
 * events still reads the row that committed last, once (src/distributed/tail.ts).
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prepareDatabase } from "../../src/distributed/index.ts";
import { RunStore } from "../../src/distributed/store.ts";
import { Tail } from "../../src/distributed/tail.ts";
import type { Snapshot } from "../../src/runs/index.ts";
import { describePostgres } from "../helpers/postgres.ts";

describePostgres("the run store", (postgres) => {
	let url = "";
	let store: RunStore;
	let held: pg.Client;
	beforeAll(async () => {
		url = await postgres().database();
		const ready = await prepareDatabase(url, { migrate: true, env: {} });
		if (!ready.ok) throw new Error(ready.message);
		await ready.value.db.close();
		store = new RunStore(url, 2);
		held = new pg.Client({ connectionString: url });
		await held.connect();
		await store.createRun("r1", { flow: { name: "t" } } as unknown as Snapshot);
	});
	afterAll(async () => {
		await held?.end();
		await store?.close();
	});

	it("follows the events and the journal past a row that committed after a later one", async () => {
		const events = new Tail();
		const journal = new Tail();
		await store.appendEvents("r1", [{ type: "first" }]);
		await store.append("r1", [{ type: "life_start", life: 1, at: "2026-12-06T00:00:00Z" } as never], "w1");
		expect((await store.eventsPast("r1", events)).map((e) => e.event.type)).toEqual(["first"]);
		expect((await store.journalPast("r1", journal)).map((e) => e.entry.type)).toEqual(["life_start"]);

		// One worker's append takes its seq and has not committed; another's, later, commits first.
		await held.query("BEGIN");
		await held.query("INSERT INTO pi_flows.events (run_id, event) VALUES ('r1', '{\"type\":\"slow\"}')");
		await held.query(
			'INSERT INTO pi_flows.journal (run_id, type, entry) VALUES (\'r1\', \'note\', \'{"type":"note","text":"slow"}\')',
		);
		await store.appendEvents("r1", [{ type: "quick" }]);
		await store.append("r1", [{ type: "note", text: "quick" } as never], "w2");
		const before = await store.eventsAfter("r1", 0);
		expect(before.map((e) => e.event.type)).toEqual(["first", "quick"]);
		expect((await store.eventsPast("r1", events)).map((e) => e.event.type)).toEqual(["quick"]);
		expect((await store.journalPast("r1", journal)).map((e) => (e.entry as { text?: string }).text)).toEqual(["quick"]);
		await held.query("COMMIT");

		// The slow rows' seqs are below what was read; a follower asking only past the highest would pass them by.
		const all = await store.eventsAfter("r1", 0);
		expect(all.map((e) => e.event.type)).toEqual(["first", "slow", "quick"]);
		expect((await store.eventsAfter("r1", before.at(-1)?.seq ?? 0)).map((e) => e.event.type)).toEqual([]);
		expect((await store.eventsPast("r1", events)).map((e) => e.event.type)).toEqual(["slow"]);
		expect((await store.journalPast("r1", journal)).map((e) => (e.entry as { text?: string }).text)).toEqual(["slow"]);
		expect(await store.eventsPast("r1", events)).toEqual([]);
		expect(await store.journalPast("r1", journal)).toEqual([]);
	});
});
