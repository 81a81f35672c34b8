/**
 * What the distributed tests do to the `fan` flow (a map of items, each one helper turn, then a sum) on the
 * DBOS backend: start it from the CLI, watch its journal rows, wait for the moment a map is under way, and
 * check that every visit ended ok and was recorded exactly once.
 */
import { expect } from "vitest";
import type { RunStore } from "../../src/distributed/store.ts";
import type { JournalEntry } from "../../src/runs/index.ts";
import { cliChild } from "../helpers/kill.ts";
import type { TempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

/** The `fan` flow: a literal map of `items` items, four at a time, each one helper turn, then a sum. */
export function fanFlow(items: number): string {
	return flowOf(
		"fan",
		`  - id: items
    map: [${Array.from({ length: items }, (_, i) => `item-${i + 1}`).join(", ")}]
    concurrency: 4
    do:
      - id: work
        agent: helper
        reads: [item]
  - id: sum
    agent: helper
    reads: [items]
`,
		{ work: "Work on the item under `item`.", sum: "Sum up what the items under `items` say." },
	);
}

/** `pi-flows run fan go --script <script> --backend dbos`, followed to its end; `env` added to the project's. */
export function runFan(project: TempProject, url: string, script: string, env: NodeJS.ProcessEnv = {}) {
	return cliChild(
		project,
		["run", "fan", "go", "--script", script, "--project", "--backend", "dbos", "--database", url],
		env,
	);
}

/** One row of the database's journal, in the order it was written. */
export interface JournalRow {
	path: string;
	type: string;
	executor: string;
	entry: JournalEntry;
}

/** The database's journal, every run's, in the order it was written. */
export async function journalRows(store: RunStore): Promise<JournalRow[]> {
	return (await store.pool.query<JournalRow>("SELECT path, type, executor, entry FROM pi_flows.journal ORDER BY seq"))
		.rows;
}

const itemWork = (p: string) => /^items\[\d+\]\/work$/.test(p);

/** The item visits `executor` started, and of those the ones still in flight (started, not ended). */
export function itemVisitsOf(rows: JournalRow[], executor: string): { started: string[]; inFlight: string[] } {
	const ended = new Set(rows.filter((x) => x.type === "visit_end" && itemWork(x.path)).map((x) => x.path));
	const started = rows.filter((x) => x.type === "visit_start" && x.executor === executor && itemWork(x.path));
	return { started: started.map((x) => x.path), inFlight: started.map((x) => x.path).filter((p) => !ended.has(p)) };
}

/**
 * Waits until the map is under way: at least two items ended and, when `executor` is given, that worker
 * has an item's turn in flight. Fails after 90 s with `logs()`, which should say why.
 */
export async function whenMapUnderWay(store: RunStore, logs: () => string, executor?: string): Promise<void> {
	for (const started = Date.now(); ; ) {
		if (Date.now() - started > 90_000) throw new Error(`the map never reached the moment:\n${logs()}`);
		const rows = await journalRows(store);
		const ended = new Set(rows.filter((x) => x.type === "visit_end" && itemWork(x.path)).map((x) => x.path));
		if (ended.size >= 2 && (!executor || itemVisitsOf(rows, executor).inFlight.length > 0)) return;
		await new Promise((res) => setTimeout(res, 20));
	}
}

/** Every item's visit, the map's and the sum's ended once, each end ok. */
export async function expectEachEndedOnceOk(store: RunStore, id: string, items: number): Promise<void> {
	const counts = await store.endCounts(id);
	for (let i = 1; i <= items; i++) expect(counts.get(`items[${i}]/work`), `items[${i}]/work`).toBe(1);
	expect(counts.get("items")).toBe(1);
	expect(counts.get("sum")).toBe(1);
	for (const e of (await journalRows(store)).filter((x) => x.type === "visit_end"))
		expect(e.entry.type === "visit_end" && e.entry.ended.ok, e.path).toBe(true);
}
