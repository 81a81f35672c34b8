/**
 * The distributed backend's record in Postgres: the run (its snapshot, life, status, result), the journal's
 * facts (the same `JournalEntry` values the run folder's journal holds, one row each), the events a person
 * follows live, and the workers' heartbeats. DBOS keeps its own tables (workflows, queues) in its `dbos`
 * schema of the same database; these live in `pi_flows`.
 *
 * The tables are made by the schema's migration 2 (`schema.ts`), under the lock every migration takes.
 *
 * Exactly once: a visit's end that stands (ok, or a failure `on-fail` absorbed) is unique per run and
 * path (a partial unique index), so a turn that ran twice (a worker killed after the turn, before its
 * item was marked done) is recorded once; the second write is dropped by the database, not by us.
 */
import pg from "pg";
import {
	classifyDatabaseError,
	type DatabaseFailure,
	DatabaseFault,
	type DatabaseTarget,
	parseDatabaseUrl,
} from "./database.ts";
import { redact, redactedJson } from "../secrets/index.ts";
import type { JournalEntry } from "../runs/index.ts";
import type { Snapshot } from "../runs/index.ts";

/** A run as the database lists it. */
export interface RunRow {
	id: string;
	flow: string;
	createdAt: string;
	updatedAt: string;
	life: number;
	status: string;
	stopRequested: boolean;
	/** What a worker does with a visit cut after a tool that writes: `stop` (default) or `rerun`. */
	inDoubt: "stop" | "rerun";
	snapshot: Snapshot;
	result?: unknown;
}

/** An event as recorded, with its place in the run's stream. */
export interface StoredEvent {
	seq: number;
	event: Record<string, unknown> & { type: string };
}

/** Whether an entry is a visit end that stands across lives (recorded exactly once). */
function finalEnd(entry: JournalEntry): boolean {
	return entry.type === "visit_end" && (entry.ended.ok || entry.ended.absorbed === true);
}

function pathOf(entry: JournalEntry): string | null {
	return "path" in entry ? entry.path : null;
}

/**
 * The advisory locks (Postgres's two-key form, with the run id's `hashtext` as the second key) an append
 * takes on its run for the rest of its transaction, before its rows take their `seq`s. A row's `seq` is
 * taken at insert and the row is seen at commit, so two workers appending to one run at once could commit
 * in the opposite order to their `seq`s, and a follower reading past the highest `seq` it has read (the
 * page, `pi-flows run --backend dbos`) would pass over the row that committed last, for good. Under the
 * lock, a run's rows are numbered in the order they become visible. Appends to different runs do not wait
 * on each other (but for a rare collision of two runs' hashes, which costs a wait, not a row).
 */
export const APPEND_LOCK = { journal: 0x7066_6a31, events: 0x7066_6531 } as const;

/**
 * One statement that takes `table`'s lock on `$1` (the run id) and then inserts `rows` (each a list of
 * parameter places, typed: the rows come through a `SELECT`, which would take an untyped one for text).
 */
function lockedInsert(table: keyof typeof APPEND_LOCK, columns: string, rows: string[]): string {
	return `WITH locked AS (SELECT pg_advisory_xact_lock(${APPEND_LOCK[table]}, hashtext($1)))
		INSERT INTO pi_flows.${table} (${columns})
		SELECT v.* FROM locked, (VALUES ${rows.join(", ")}) AS v(${columns})`;
}

/** The journal's insert of a batch under its run's lock, ignoring a second end of a visit that already ended. */
export function journalInsert(
	runId: string,
	entries: readonly JournalEntry[],
	executor: string,
): { text: string; values: unknown[] } {
	const values: unknown[] = [runId];
	const rows = entries.map((e, i) => {
		values.push(e.type, pathOf(e), finalEnd(e), executor, redactedJson(e));
		const b = i * 5 + 1;
		return `($1::text, $${b + 1}::text, $${b + 2}::text, $${b + 3}::boolean, $${b + 4}::text, $${b + 5}::jsonb)`;
	});
	return {
		text: `${lockedInsert("journal", "run_id, type, path, final, executor, entry", rows)} ON CONFLICT DO NOTHING`,
		values,
	};
}

/** The events' insert of a batch under its run's lock. */
export function eventsInsert(runId: string, events: readonly unknown[]): { text: string; values: unknown[] } {
	const values: unknown[] = [runId];
	const rows = events.map((e, i) => {
		values.push(redactedJson(e));
		return `($1::text, $${i + 2}::jsonb)`;
	});
	return { text: lockedInsert("events", "run_id, event", rows), values };
}

/** How a store meets a lost connection. */
export interface StoreOptions {
	/** Where a lost connection and each retry are said (redacted lines, naming the database and what to check). */
	log?: (line: string) => void;
	/** How long one query keeps retrying a lost connection before it fails with `database-lost`. Default 60 s. */
	retryForMs?: number;
}

/** The waits between retries of a query whose connection was lost: doubling from 100 ms, at most 2 s. */
export function retryDelay(attempt: number): number {
	return Math.min(2000, 100 * 2 ** attempt);
}

/** One line of a lost connection for a worker's log: what, where, what to check, and what happens now. */
function said(failure: DatabaseFailure, now: string): string {
	return redact(`${failure.code}: ${failure.message}; ${now}. ${failure.hint}`);
}

/** The record of runs in one database. Whoever opens it closes it (`close`). */
export class RunStore {
	readonly pool: pg.Pool;
	readonly #target: DatabaseTarget;
	readonly #log: (line: string) => void;
	readonly #retryForMs: number;
	#saidIdleLost = 0;

	constructor(url: string, max = 8, options: StoreOptions = {}) {
		this.pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
		const parsed = parseDatabaseUrl(url);
		this.#target = parsed.ok
			? parsed.value
			: { url, shown: "the database", host: "?", port: 0, database: "?", user: "" };
		this.#log = options.log ?? (() => {});
		this.#retryForMs = options.retryForMs ?? 60_000;
		// An idle connection that dies (the server restarted, an administrator cut it) is the pool's to replace,
		// not a crash of ours; it is said once a burst, since a pool loses all its connections at once.
		this.pool.on("error", (error) => {
			if (Date.now() - this.#saidIdleLost < 5000) return;
			this.#saidIdleLost = Date.now();
			const failure = classifyDatabaseError(error, this.#target, "use");
			this.#log(said(failure, "an idle connection; the next query reconnects"));
		});
	}

	/**
	 * A query that outlives a lost connection: a connection the server cut (57P01, a restart, a reset socket,
	 * a refused reconnect while it comes back) is retried with a doubling wait for up to `retryForMs`, each
	 * retry said. Safe to repeat: every write here is idempotent where it matters (a visit's standing end is
	 * unique per run and path, so a write that reached the database before its answer was lost is dropped the
	 * second time); any other failure, or a connection lost for longer, is a {@link DatabaseFault} at once.
	 */
	async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
		text: string,
		values?: unknown[],
	): Promise<pg.QueryResult<R>> {
		const started = Date.now();
		for (let attempt = 0; ; attempt++) {
			try {
				return await this.pool.query<R>(text, values);
			} catch (error) {
				const failure: DatabaseFailure = classifyDatabaseError(error, this.#target, "use");
				if (failure.code !== "database-lost") throw new DatabaseFault(failure);
				const wait = retryDelay(attempt);
				if (Date.now() - started + wait > this.#retryForMs) {
					this.#log(said(failure, `gave up after ${attempt + 1} attempts`));
					throw new DatabaseFault(failure);
				}
				this.#log(said(failure, `retrying in ${wait} ms, attempt ${attempt + 2}`));
				await new Promise((resolve) => setTimeout(resolve, wait));
			}
		}
	}

	async close(): Promise<void> {
		await this.pool.end();
	}

	async createRun(id: string, snapshot: Snapshot): Promise<void> {
		await this.query("INSERT INTO pi_flows.runs (id, flow, snapshot) VALUES ($1, $2, $3::jsonb)", [
			id,
			snapshot.flow.name,
			JSON.stringify(snapshot),
		]);
	}

	async run(id: string): Promise<RunRow | undefined> {
		const r = await this.query("SELECT * FROM pi_flows.runs WHERE id = $1", [id]);
		return r.rows[0] ? rowOf(r.rows[0]) : undefined;
	}

	/** Runs, newest first (without their snapshots' texts when `brief`). */
	async runs(limit = 50): Promise<Omit<RunRow, "snapshot">[]> {
		const r = await this.query(
			`SELECT id, flow, created_at, updated_at, life, status, stop_requested, in_doubt, result
			 FROM pi_flows.runs ORDER BY created_at DESC, id DESC LIMIT $1`,
			[limit],
		);
		return r.rows.map((row) => {
			const { snapshot: _, ...rest } = rowOf({ ...row, snapshot: null });
			return rest;
		});
	}

	async setStatus(id: string, status: string, result?: unknown): Promise<void> {
		await this.query(
			`UPDATE pi_flows.runs SET status = $2, updated_at = now(),
				result = COALESCE($3::jsonb, result) WHERE id = $1`,
			[id, status, result === undefined ? null : redactedJson(result)],
		);
	}

	/** Asks the run to stop: the workers running it read this at their next heartbeat. */
	async requestStop(id: string): Promise<boolean> {
		const r = await this.query(
			"UPDATE pi_flows.runs SET stop_requested = true, updated_at = now() WHERE id = $1 AND status IN ('enqueued', 'running')",
			[id],
		);
		return (r.rowCount ?? 0) > 0;
	}

	/**
	 * Starts the run's next life: the stop is cleared, the life counted and its in-doubt policy set; resolves
	 * to the new life.
	 */
	async nextLife(id: string, inDoubt: "stop" | "rerun" = "stop"): Promise<number> {
		const r = await this.query(
			`UPDATE pi_flows.runs SET life = life + 1, stop_requested = false, status = 'enqueued', in_doubt = $2,
				updated_at = now() WHERE id = $1 RETURNING life`,
			[id, inDoubt],
		);
		return Number(r.rows[0]?.life ?? 0);
	}

	/** Which of these runs were asked to stop. */
	async stopsRequested(ids: readonly string[]): Promise<Set<string>> {
		if (!ids.length) return new Set();
		const r = await this.query("SELECT id FROM pi_flows.runs WHERE id = ANY($1) AND stop_requested", [ids]);
		return new Set(r.rows.map((row) => row.id as string));
	}

	async append(runId: string, entries: readonly JournalEntry[], executor: string): Promise<void> {
		if (!entries.length) return;
		const q = journalInsert(runId, entries, executor);
		await this.query(q.text, q.values);
	}

	/** The run's journal in order; with `under`, only the facts of visits under that path (an item's). */
	async entries(runId: string, under?: string): Promise<JournalEntry[]> {
		const r = under
			? await this.query("SELECT entry FROM pi_flows.journal WHERE run_id = $1 AND left(path, $3) = $2 ORDER BY seq", [
					runId,
					`${under}/`,
					under.length + 1,
				])
			: await this.query("SELECT entry FROM pi_flows.journal WHERE run_id = $1 ORDER BY seq", [runId]);
		return r.rows.map((row) => row.entry as JournalEntry);
	}

	/** How many times each visit's end was recorded (for proofs: every count must be 1). */
	async endCounts(runId: string): Promise<Map<string, number>> {
		const r = await this.query(
			"SELECT path, count(*)::int AS n FROM pi_flows.journal WHERE run_id = $1 AND type = 'visit_end' GROUP BY path",
			[runId],
		);
		return new Map(r.rows.map((row) => [row.path as string, row.n as number]));
	}

	async appendEvents(runId: string, events: readonly unknown[]): Promise<void> {
		if (!events.length) return;
		const q = eventsInsert(runId, events);
		await this.query(q.text, q.values);
	}

	/** The run's events past `seq`, in order (a run's rows are numbered in the order they are seen: {@link APPEND_LOCK}). */
	async eventsAfter(runId: string, seq: number, limit = 1000): Promise<StoredEvent[]> {
		const r = await this.query(
			"SELECT seq, event FROM pi_flows.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
			[runId, seq, limit],
		);
		return r.rows.map((row) => ({ seq: Number(row.seq), event: row.event }));
	}

	/**
	 * A worker says it is alive. A worker taken for dead while it was only slow (a pause past the bound) is
	 * claimable again once it beats, so its later real death is still taken over.
	 */
	async heartbeat(executor: string, host: string, pid: number): Promise<void> {
		await this.query(
			`INSERT INTO pi_flows.workers (executor_id, host, pid) VALUES ($1, $2, $3)
			 ON CONFLICT (executor_id) DO UPDATE SET last_seen = now(), taken_by = NULL, taken_at = NULL`,
			[executor, host, pid],
		);
	}

	/** A worker leaving on purpose: its heartbeat is dated so the others take over its work at once. */
	async leave(executor: string): Promise<void> {
		await this.query("UPDATE pi_flows.workers SET last_seen = 'epoch' WHERE executor_id = $1", [executor]);
	}

	/**
	 * Claims the workers silent for longer than `deadAfterMs`: each is claimed by exactly one live worker
	 * (the update is the lock), which then takes over its workflows.
	 */
	async claimDead(executor: string, deadAfterMs: number): Promise<{ executor: string; silentMs: number }[]> {
		const r = await this.query(
			`UPDATE pi_flows.workers SET taken_by = $1, taken_at = now()
			 WHERE taken_by IS NULL AND executor_id <> $1 AND last_seen < now() - ($2 || ' milliseconds')::interval
			 RETURNING executor_id, (extract(epoch FROM now() - last_seen) * 1000)::bigint AS silent`,
			[executor, String(deadAfterMs)],
		);
		return r.rows.map((row) => ({ executor: row.executor_id as string, silentMs: Number(row.silent) }));
	}

	/** Workers and when each was last heard from. */
	async workers(): Promise<{ executor: string; host: string; pid: number; lastSeen: string; takenBy?: string }[]> {
		const r = await this.query("SELECT * FROM pi_flows.workers ORDER BY started_at");
		return r.rows.map((row) => ({
			executor: row.executor_id,
			host: row.host,
			pid: row.pid,
			lastSeen: new Date(row.last_seen).toISOString(),
			...(row.taken_by ? { takenBy: row.taken_by } : {}),
		}));
	}
}

function rowOf(row: Record<string, unknown>): RunRow {
	return {
		id: row.id as string,
		flow: row.flow as string,
		createdAt: new Date(row.created_at as string).toISOString(),
		updatedAt: new Date(row.updated_at as string).toISOString(),
		life: Number(row.life),
		status: row.status as string,
		stopRequested: row.stop_requested === true,
		inDoubt: row.in_doubt === "rerun" ? "rerun" : "stop",
		snapshot: row.snapshot as Snapshot,
		...(row.result ? { result: row.result } : {}),
	};
}
