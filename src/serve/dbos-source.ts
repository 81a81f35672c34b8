/**
 * The DBOS backend's runs as the server reads them: every run in the database, whichever worker runs
 * it, followed by its journal rows and events (by their sequence numbers), its row (status, a stop
 * asked) and its open questions. While a page follows a run, the run is dated as followed, so a
 * worker's question waits for the person at the browser as it waits for one at a terminal
 * (`src/distributed/questions.ts`). Loaded only when the server is given a database.
 */
import { journalTroubles, type RecordedEvent, type ResultFile } from "../report/index.ts";
import { fromSnapshot, type JournalEntry, readEntry, type Snapshot } from "../runs/index.ts";
import type { Follower } from "./live.ts";
import type { RunRecord, WaitingQuestion } from "./record.ts";
import { isProjectRun } from "./trust.ts";

type StoreModule = typeof import("../distributed/store.ts");
type Store = InstanceType<StoreModule["RunStore"]>;
type Questions = typeof import("../distributed/questions.ts");
type Client = typeof import("../distributed/client.ts");
type Worker = typeof import("../distributed/worker.ts");

/** What the server uses of the DBOS backend, loaded once. */
export interface Dbos {
	store: Store;
	url: string;
	questions: Questions;
	client: Client;
	worker: Worker;
	/** Snapshots by run id (a run's snapshot never changes). */
	snapshots: Map<string, Snapshot>;
}

/** Opens the database (its schema checked, not migrated), or says why not in the database module's words. */
export async function openDbos(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<Dbos | { error: string }> {
	const d = await import("../distributed/index.ts");
	const ready = await d.prepareDatabase(flag, { migrate: false, env });
	if (!ready.ok) return { error: d.formatDatabaseFailure(ready) };
	const url = ready.value.db.target.url;
	await ready.value.db.close();
	const { RunStore } = await import("../distributed/store.ts");
	return {
		store: new RunStore(url, 4),
		url,
		questions: await import("../distributed/questions.ts"),
		client: await import("../distributed/client.ts"),
		worker: await import("../distributed/worker.ts"),
		snapshots: new Map(),
	};
}

/** The snapshots of these runs, read once each. */
export async function snapshotsOf(db: Dbos, ids: readonly string[]): Promise<Map<string, Snapshot>> {
	const missing = ids.filter((id) => !db.snapshots.has(id));
	if (missing.length) {
		const r = await db.store.query<{ id: string; snapshot: Snapshot }>(
			"SELECT id, snapshot FROM pi_flows.runs WHERE id = ANY($1)",
			[missing],
		);
		for (const row of r.rows) db.snapshots.set(row.id, row.snapshot);
	}
	return db.snapshots;
}

/** One DBOS run followed as its workers record it. */
export class DbosRun implements Follower {
	readonly #db: Dbos;
	readonly id: string;
	readonly #snapshot: Snapshot;
	readonly #flow: RunRecord["flow"];
	readonly #entries: JournalEntry[] = [];
	readonly #events: RecordedEvent[] = [];
	readonly #problems: string[] = [];
	#journalSeq = 0;
	#eventSeq = 0;
	#row: Awaited<ReturnType<Store["run"]>>;
	#questions: WaitingQuestion[] = [];
	#broken: string | undefined;
	#last = 0;

	private constructor(db: Dbos, id: string, snapshot: Snapshot) {
		this.#db = db;
		this.id = id;
		this.#snapshot = snapshot;
		const checked = fromSnapshot(snapshot);
		this.#flow = "value" in checked ? checked.value : undefined;
		if ("error" in checked) this.#problems.push(`the graph cannot be drawn: ${checked.error}`);
		this.#last = Date.parse(snapshot.createdAt) || 0;
	}

	/** Opens a run of the database, or undefined when there is none by that id. */
	static async open(db: Dbos, id: string): Promise<DbosRun | undefined> {
		const row = await db.store.run(id);
		if (!row) return undefined;
		db.snapshots.set(id, row.snapshot);
		const run = new DbosRun(db, id, row.snapshot);
		run.#row = row;
		return run;
	}

	get project(): boolean {
		return isProjectRun(this.#snapshot);
	}

	async poll(): Promise<boolean> {
		const { store } = this.#db;
		let grew = false;
		// The row before the journal: a worker appends the run's end and then marks the row ended, so a row read
		// first never says "ended" of a journal this poll reads without its end.
		const row = await store.run(this.id);
		const j = await store.query<{ seq: string; entry: JournalEntry }>(
			"SELECT seq, entry FROM pi_flows.journal WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT 20000",
			[this.id, this.#journalSeq],
		);
		for (const r of j.rows) {
			this.#journalSeq = Number(r.seq);
			this.#entries.push(readEntry(r.entry));
			const at = "at" in r.entry ? Date.parse(String(r.entry.at)) : Number.NaN;
			if (!Number.isNaN(at)) this.#last = Math.max(this.#last, at);
			grew = true;
		}
		for (const e of await store.eventsAfter(this.id, this.#eventSeq, 20000)) {
			this.#eventSeq = e.seq;
			const event = e.event as unknown as RecordedEvent;
			this.#events.push(event);
			const at = Date.parse(String(event.at));
			if (!Number.isNaN(at)) this.#last = Math.max(this.#last, at);
			grew = true;
		}
		const before = JSON.stringify([this.#row?.status, this.#row?.stopRequested, this.#row?.life, this.#questions]);
		this.#row = row;
		const open = await this.#db.questions.openQuestions(store, this.id);
		this.#questions = open.map((q) => ({ life: q.life, visit: q.path, card: q.card }));
		this.#broken =
			row && (row.status === "running" || row.status === "enqueued")
				? await this.#db.client.workflowFailure(store, this.#db.worker.runWorkflowId(this.id, row.life))
				: undefined;
		return grew || before !== JSON.stringify([row?.status, row?.stopRequested, row?.life, this.#questions]);
	}

	position(): string {
		return `${this.#journalSeq}.${this.#eventSeq}`;
	}

	async record(): Promise<RunRecord> {
		const row = this.#row;
		return {
			id: this.id,
			source: "dbos",
			where: `${this.id} (DBOS backend)`,
			snapshot: this.#snapshot,
			...(this.#flow ? { flow: this.#flow } : {}),
			journal: this.#entries,
			events: this.#events,
			...(row?.result ? { result: row.result as ResultFile } : {}),
			process: {
				kind: "dbos",
				status: row?.status ?? "gone",
				stopRequested: row?.stopRequested ?? false,
				...(this.#broken ? { broken: this.#broken } : {}),
			},
			questions: this.#questions,
			lastRecordAt: this.#last,
			sealed: true,
			project: this.project,
			problems: this.#problems,
			troubles: journalTroubles(this.#entries),
		};
	}

	/** A page follows the run: the worker's questions wait for it. */
	async beat(): Promise<void> {
		await this.#db.questions.markFollowed(this.#db.store, this.id);
	}
}
