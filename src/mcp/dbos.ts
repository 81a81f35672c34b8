/**
 * The DBOS backend of the MCP server (`pi-flows mcp --backend dbos`): a run is checked and prepared here
 * as `pi-flows run --backend dbos` prepares it, put in the Postgres database its workers share, and
 * followed from here by its id: its events come back as progress, and a question a worker's `ask` node
 * writes to the database's questions table is put to the client as a form (or takes the unattended rule),
 * its answer written back for the worker. A stop is asked in the database, so it reaches whichever worker
 * runs the run; a run started elsewhere (another server, a terminal) is read, stopped and resumed by its
 * id from any machine reaching the database. The server closing stops following; the workers go on.
 *
 *   const backend = await dbosBackend(settings, "postgres://…")   // the schema checked, not migrated
 *   backend.launch(flow, "the fence", { attended: true })           →  { ok: true, run: { id: "2026-…-paint-3f2a1c" } }
 */
import { formatDatabaseFailure, prepareDatabase, redactError } from "../distributed/index.ts";
import { createGitPort } from "../engine/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { type InDoubt, snapshotOf } from "../runs/index.ts";
import type { LaunchCall, Read, RunBackend, Started } from "./backend.ts";
import { prepareFlow } from "./folder.ts";
import { type Ended, type LiveRun, liveState, QUESTION_GRACE_MS } from "./live-run.ts";
import { journalReport } from "./results.ts";
import type { McpSettings } from "./settings.ts";

/** How often a followed run's events and questions are read from the database. */
const FOLLOW_POLL_MS = 100;

/** Opens the database (`--database`, else `PI_FLOWS_DATABASE_URL`) for the DBOS backend, or says why not. */
export async function dbosBackend(
	settings: McpSettings,
	database: string | undefined,
): Promise<{ ok: true; value: RunBackend } | { ok: false; error: string }> {
	// The schema is checked, never migrated: a worker (`pi-flows worker`) migrates it, once, before runs.
	const ready = await prepareDatabase(database, { migrate: false, env: settings.env });
	if (!ready.ok) return { ok: false, error: formatDatabaseFailure(ready) };
	const url = ready.value.db.target.url;
	await ready.value.db.close();
	// Past the folder's door, as `run --backend dbos` takes them: the door is the database layer, and the client
	// loads the DBOS SDK, which `pi-flows runs` and the schema check do without.
	const { enqueueRun, ENDED, followRun, startNextLife } = await import("../distributed/client.ts");
	const { RunStore } = await import("../distributed/store.ts");
	const store = new RunStore(url, 4, { log: (line) => settings.note(line) });
	const grace = settings.graceMs ?? QUESTION_GRACE_MS;

	/** Follows life `life` of run `id` from event `after`: its events, questions and end. */
	const followed = (id: string, flow: string, attended: boolean, from: { life?: number; after: number }): LiveRun => {
		const state = liveState(grace, attended);
		const following = new AbortController();
		const life = followRun(store, id, {
			onEvent: state.onEvent,
			signal: following.signal,
			ask: state.port,
			pollMs: FOLLOW_POLL_MS,
			after: from.after,
			...(from.life !== undefined ? { life: from.life } : {}),
		});
		const done = life.then((f): Ended => {
			if ("stoppedFollowing" in f) throw new Error(`run ${id} is no longer followed from this server`);
			const ended = { result: f.result, usage: f.usage };
			state.end(ended);
			return ended;
		});
		// A run's end is read through `outcome()`; a rejection (no longer followed) must not go unhandled.
		done.catch(() => {});
		return {
			id,
			backend: "dbos",
			flow,
			startedAt: Date.now(),
			progress: state.progress,
			usage: () => undefined,
			asks: state.asks,
			pending: state.pending,
			done,
			outcome: state.outcome,
			stopping: () => state.controller.signal.aborted,
			attach: state.attach,
			answer: state.answer,
			stop: () => {
				// The question waiting here is let go unanswered; the worker's own wait ends with the stop.
				state.controller.abort();
				store
					.requestStop(id)
					.catch((error: unknown) => settings.note(`cannot ask ${id} to stop: ${redactError(error)}`));
			},
			release: async () => {
				following.abort();
				await done.catch(() => undefined);
			},
		};
	};

	const guarded = async (what: () => Promise<Read>): Promise<Read> => {
		try {
			return await what();
		} catch (error) {
			return { ok: false, error: redactError(error) };
		}
	};

	const read = (id: string): Promise<Read> =>
		guarded(async () => {
			const row = await store.run(id);
			if (!row) return { ok: false, error: `no run \`${id}\` in the database (runs lists them)` };
			const entries = await store.entries(id);
			return {
				ok: true,
				report: journalReport(entries, {
					run: id,
					flow: row.flow,
					backend: "dbos",
					running: !ENDED.has(row.status),
					...(row.snapshot.settings.budget ? { budget: row.snapshot.settings.budget } : {}),
				}),
			};
		});

	return {
		ok: true,
		value: {
			name: "dbos",
			async launch(flow: CheckedFlow, input: Value, options: LaunchCall): Promise<Started> {
				const prepared = await prepareFlow(settings, flow, options.attended, createGitPort());
				if (!prepared.ok) return prepared;
				const { runOptions } = prepared;
				const { flags } = settings;
				// The same checks ran here as for a run folder; the run itself goes to the database and its workers.
				const snapshot = snapshotOf(flow, input, runOptions.scripts, {
					cwd: settings.cwd,
					// A client that answers forms is the person following: the workers' questions come to it.
					somebodyThere: options.attended,
					...(runOptions.model ? { model: runOptions.model } : {}),
					...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
					...(runOptions.budget ? { budget: runOptions.budget } : {}),
					...(runOptions.script ? { script: runOptions.script } : {}),
					...(options.traceparent ? { traceparent: options.traceparent } : {}),
				});
				try {
					const id = await enqueueRun(store, url, snapshot);
					return { ok: true, run: followed(id, flow.name.value, options.attended, { after: 0 }) };
				} catch (error) {
					return { ok: false, stage: "run", faults: [], lines: [redactError(error)] };
				}
			},

			async resume(handle: string, options: LaunchCall & { inDoubt?: InDoubt }): Promise<Started> {
				try {
					const row = await store.run(handle);
					if (!row) return { ok: false, stage: "run", faults: [], lines: [`no run \`${handle}\` in the database`] };
					const next = await startNextLife(store, url, handle, options.inDoubt ?? "stop");
					if (!next.ok)
						return {
							ok: false,
							stage: "run",
							faults: [],
							lines: [next.refused.replace("--in-doubt rerun", '`"inDoubt": "rerun"`')],
						};
					return { ok: true, run: followed(handle, row.flow, options.attended, next) };
				} catch (error) {
					return { ok: false, stage: "run", faults: [], lines: [redactError(error)] };
				}
			},

			read,

			async list(limit: number): Promise<string[]> {
				return (await store.runs(limit)).map((r) => r.id);
			},

			async stopElsewhere(handle: string): Promise<Read> {
				return guarded(async () => {
					await store.requestStop(handle);
					return read(handle);
				});
			},

			close: () => store.close(),
		},
	};
}
