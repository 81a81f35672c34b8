/**
 * A worker of the DBOS backend: one process that joins the database, dequeues runs and map items, and runs
 * them with the one walk every backend shares. A run is a DBOS workflow (`pi-flows-run`); each item of a
 * map is a child workflow on the items queue (`pi-flows-item`) whose id is the run, its life and the item's
 * visit path, so it is started and recorded once however often its coordinator asks for it. Every visit's
 * facts go to the store (`store.ts`); a recovered workflow replays them, so a finished visit never runs again.
 *
 * A dead worker's workflows stay PENDING under its executor id until someone recovers them. Every worker
 * heartbeats a row; each one, every beat, claims the workers silent for longer than `deadAfterMs` (one
 * claimer per dead worker: the claim is a row update) and re-enqueues their pending workflows, which any
 * worker then dequeues. No person acts; the bound is `deadAfterMs` plus a beat and a queue poll.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import { databaseAsk } from "./questions.ts";
import type { CheckedFlow } from "../language/index.ts";
import { abortableSleep, type Clock, createBashCheck, createGitPort, type RunOptions } from "../engine/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import { runFlow } from "../kinds/run.ts";
import { focusOf } from "../engine/index.ts";
import type { ReuseSource } from "../engine/index.ts";
import { reuseSource } from "../reuse/index.ts";
import { openHost, type PiHost, readScript } from "../pi/index.ts";
import { FAILURE_KIND_TABLE, type FailureKind, fanOutEvents, type FlowEvent } from "../runtime/index.ts";
import { journalState, lifeTraces } from "../runs/index.ts";
import { captureWanted, type RunTrace, traceRun } from "../telemetry/index.ts";
import { fromSnapshot, runEndEntry, snapshotModels } from "../runs/index.ts";
import type { JournalEntry } from "../runs/index.ts";
import { liveReplay, storeRecorder } from "./record.ts";
import { type RunRow, RunStore } from "./store.ts";
import { DatabaseFault } from "./database.ts";
import { prepareDatabase, SCHEMA_VERSION } from "./schema.ts";
import { addUsage, emptyUsage, type Usage } from "../runtime/index.ts";

/**
 * The clock of a run on this backend: inside the run's workflow a sleep is DBOS's durable one (its wake-up
 * is checkpointed in the system database, so a recovered workflow sleeps only what is left); outside one
 * (an item's walk above its focus never sleeps, but a library caller may) it is the system clock's. A stop
 * ends the wait at once either way; the `wait` kind's own deadline fact keeps the remainder across lives.
 */
export const DBOS_CLOCK: Clock = {
	now: () => Date.now(),
	sleep(ms, signal) {
		if (!DBOS.workflowID) return abortableSleep(ms, signal);
		if (signal?.aborted) return Promise.reject(signal.reason);
		return new Promise((done, fail) => {
			const onAbort = () => fail(signal?.reason);
			signal?.addEventListener("abort", onAbort, { once: true });
			DBOS.sleep(ms).then(
				() => {
					signal?.removeEventListener("abort", onAbort);
					done();
				},
				(e) => {
					signal?.removeEventListener("abort", onAbort);
					fail(e);
				},
			);
		});
	},
};

/** The application's name in DBOS's tables, and the version every worker and client agrees on. */
export const DBOS_APP = "pi-flows";
export const DBOS_APP_VERSION = `pi-flows-schema-${SCHEMA_VERSION}`;
export const RUN_QUEUE = "pi-flows-runs";
export const ITEM_QUEUE = "pi-flows-items";
export const RUN_WORKFLOW = "pi-flows-run";
export const ITEM_WORKFLOW = "pi-flows-item";

/** The workflow id of a run's life: a resume is a new life, so a new workflow. */
export function runWorkflowId(runId: string, life: number): string {
	return `${runId}@${life}`;
}

/** The workflow id of a map item in a run's life: the same item is the same workflow, however often asked. */
export function itemWorkflowId(runId: string, life: number, item: string): string {
	return `${runId}@${life}:${item}`;
}

/** Options of a worker. */
export interface WorkerOptions {
	url: string;
	/** The project the turns work in (this machine's checkout). */
	cwd: string;
	agentDir: string;
	projectTrusted?: boolean;
	/** Items this worker runs at once. Default 8. */
	slots?: number;
	/** The queues' poll interval. Default 20 ms (DBOS's default of 1 s costs seconds per map). */
	pollMs?: number;
	/** How often the worker beats and looks for dead workers. Default 500 ms. */
	heartbeatMs?: number;
	/** A worker silent this long is dead and its workflows are taken over. Default 3000 ms. */
	deadAfterMs?: number;
	/** How long a query of pi-flows' own retries a lost connection before it fails (`database-lost`). Default 60 s. */
	retryForMs?: number;
	/** Where the worker's own lines go (takeovers, failures). */
	log?: (line: string) => void;
	/** Told each takeover, for measurements. */
	onTakeover?: (t: { executor: string; silentMs: number; workflows: number }) => void;
}

/** A running worker. */
export interface Worker {
	readonly executor: string;
	/** Leaves: stops taking work, dates its heartbeat so others take over at once, shuts DBOS down. */
	stop(): Promise<void>;
}

/** What a worker needs to run a run's visits, prepared once per run. */
interface Prepared {
	row: RunRow;
	flow: CheckedFlow;
	host: PiHost;
	models: RunOptions["models"];
	/** The run of the same database this one reuses from (`--reuse`), read once per life on this worker. */
	reuse?: ReuseSource;
}

/**
 * Checks the URL, connects, and migrates the database once for pi-flows and DBOS (under one advisory lock,
 * so workers starting together take turns): before any worker launches. Resolves to the URL to connect
 * with; throws a {@link DatabaseFault} (redacted, naming what to fix) otherwise.
 */
export async function migrateDatabase(url: string): Promise<string> {
	const ready = await prepareDatabase(url, { migrate: true, env: {}, also: () => DBOS.migrate(url) });
	if (!ready.ok) throw new DatabaseFault(ready);
	await ready.value.db.close();
	return ready.value.db.target.url;
}

let started = false;

/** Joins the database as a worker. One per process (DBOS is one per process). */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
	if (started) throw new Error("a worker already runs in this process");
	started = true;
	const log = options.log ?? (() => {});
	const pollMs = options.pollMs ?? 20;
	const heartbeatMs = options.heartbeatMs ?? 500;
	const deadAfterMs = options.deadAfterMs ?? 3000;
	const executor = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
	await migrateDatabase(options.url).catch((error) => {
		started = false;
		throw error;
	});
	// A lost connection is retried (bounded) and said in the worker's log; DBOS retries its own queries itself.
	const store = new RunStore(options.url, 16, {
		log,
		...(options.retryForMs !== undefined ? { retryForMs: options.retryForMs } : {}),
	});
	let client: DBOSClient | undefined;
	const timers: NodeJS.Timeout[] = [];
	try {
		client = await DBOSClient.create({ systemDatabaseUrl: options.url, applicationName: DBOS_APP });
		const dbosClient = client;
		const prepared = new Map<string, Promise<Prepared>>();
		/** Controllers of what runs here, per run, so a stop asked from any machine reaches them. */
		const running = new Map<string, Set<AbortController>>();
		const track = (runId: string) => {
			const c = new AbortController();
			let set = running.get(runId);
			if (!set) running.set(runId, (set = new Set()));
			set.add(c);
			return { signal: c.signal, abort: (why: string) => c.abort(new Error(why)), done: () => set.delete(c) };
		};
		// One pi host per life of a run: a resume starts afresh here as it does in a new process (the
		// scripted model counts each visit's requests per host, as a provider's session would).
		const prepare = (runId: string, life: number): Promise<Prepared> => {
			const key = runWorkflowId(runId, life);
			let p = prepared.get(key);
			if (!p) {
				for (const k of prepared.keys()) if (k.startsWith(`${runId}@`)) prepared.delete(k);
				p = prepareRun(store, runId, options);
				prepared.set(key, p);
				p.catch(() => prepared.delete(key));
			}
			return p;
		};
		const common = (p: Prepared, life: number, entries: readonly JournalEntry[]): Omit<RunOptions, "signal"> => {
			const s = p.row.snapshot;
			return {
				spawn: p.host.spawn,
				models: p.models,
				cwd: options.cwd,
				git: createGitPort(),
				check: createBashCheck(),
				clock: DBOS_CLOCK,
				scripts: new Map(Object.entries(s.scripts)),
				spentBefore: journalState(entries).spent,
				toolSchemas: p.host.toolSchemas,
				...(p.reuse ? { reuse: p.reuse } : {}),
				...(s.settings.budget ? { budget: s.settings.budget } : {}),
				...(s.settings.timeoutMs !== undefined ? { timeoutMs: s.settings.timeoutMs } : {}),
				// Started by a person following at a terminal: questions travel to them through the database.
				...(s.settings.somebodyThere ? { ask: databaseAsk(store, p.row.id, life) } : {}),
			};
		};
		const placement = (
			runId: string,
			life: number,
			replay: ReturnType<typeof liveReplay> | undefined,
			traced: RunTrace,
		) => ({
			async place(map: string, item: string, signal: AbortSignal) {
				const id = itemWorkflowId(runId, life, item);
				// The map's span travels with the item, so the visits its worker runs join this run's trace.
				const handle = await dbosClient.enqueue(
					{ queueName: ITEM_QUEUE, workflowName: ITEM_WORKFLOW, workflowID: id, appVersion: DBOS_APP_VERSION },
					runId,
					life,
					item,
					traced.carrier(map) ?? null,
				);
				let result: { ok: boolean; inDoubt?: string[] } | undefined;
				const stopped = new Promise<void>((resolve) =>
					signal.addEventListener("abort", () => resolve(), { once: true }),
				);
				try {
					await Promise.race([
						handle.getResult({ pollingIntervalMs: Math.max(pollMs, 20) }).then((r) => {
							result = r as typeof result;
						}),
						stopped,
					]);
				} catch (error) {
					// The item's workflow failed as a program (not as a flow): what did not end runs here.
					log(`item ${item} of ${runId} failed on its worker (${(error as Error).message}); it runs here`);
				}
				replay?.add(await store.entries(runId, item));
				// A visit its dead worker cut after a tool that writes is left for a person, as a resume leaves it.
				if (result?.inDoubt?.length) throw new Error(inDoubtMessage(result.inDoubt));
			},
		});

		const runWorkflow = async (runId: string, life: number): Promise<{ ok: boolean; status: string }> => {
			const p = await prepare(runId, life);
			const row = (await store.run(runId)) ?? p.row;
			if (row.life !== life) return { ok: false, status: "superseded" };
			await store.setStatus(runId, "running");
			const entries = await store.entries(runId);
			// A visit of the coordinator's own (not an item's) cut after a tool that writes: left for a person.
			const doubts = journalState(entries).inDoubt.filter((v) => !/\]\//.test(v));
			if (doubts.length && row.inDoubt !== "rerun") {
				const error = inDoubtMessage(doubts);
				await store.setStatus(runId, "failed", {
					flow: p.flow.name.value,
					ok: false,
					output: "",
					error,
					errorKind: "unavailable",
					visits: [],
					usage: emptyUsage(),
				});
				return { ok: false, status: "failed" };
			}
			// The life's trace links to every earlier root (a takeover of this life included); visits that ended
			// before it started are drawn as replayed, the items its workers end later are theirs to draw.
			const endedBefore = new Set(entries.flatMap((e) => (e.type === "visit_end" ? [e.path] : [])));
			const traced = traceRun({
				flow: p.flow.name.value,
				run: runId,
				life,
				backend: "dbos",
				earlier: lifeTraces(entries),
				bounds: p.flow.bounds,
				bound: p.flow.bound,
				showReplayed: (path) => endedBefore.has(path),
				capture: captureWanted(process.env),
				// Only the life the caller started is its child; a later life is a trace of its own, linked back.
				...(life === 1 && p.row.snapshot.settings.traceparent ? { parent: p.row.snapshot.settings.traceparent } : {}),
			});
			if (!entries.some((e) => e.type === "life_start" && e.life === life))
				await store.append(
					runId,
					[
						{
							type: "life_start",
							life,
							at: new Date().toISOString(),
							pid: process.pid,
							host: hostname(),
							...(traced.traceparent ? { trace: traced.traceparent } : {}),
						},
					],
					executor,
				);
			const replay = liveReplay(entries);
			const t = track(runId);
			// Items' visits are replayed here once their workers ended them: their events came from those workers.
			// A write that fails stops the run, as on a run folder: no turn starts whose end could not be kept.
			const recorder = storeRecorder(store, runId, life, executor, {
				keep: (e) => !("replayed" in e && e.replayed),
				onFailure: (m) => t.abort(m),
			});
			try {
				const result = await runFlow(p.flow, row.snapshot.input, {
					...common(p, life, entries),
					signal: t.signal,
					recorder,
					replay,
					onEvent: fanOutEvents(recorder.onEvent, traced.onEvent),
					...(traced.recording ? { requestEvents: true } : {}),
					items: placement(runId, life, replay, traced),
				});
				await recorder.drain();
				// The run's usage is every turn's, wherever it ran: the journal's, not this worker's count.
				const all = await store.entries(runId);
				const usage = { ...journalUsage(all, life), ms: result.usage.ms };
				const final = { ...result, usage };
				await store.append(runId, [runEndEntry(life, final)], executor);
				traced.end(final);
				const status = runStatus(final);
				await store.setStatus(runId, status, final);
				return { ok: final.ok, status };
			} finally {
				traced.end();
				t.done();
			}
		};

		const itemWorkflow = async (
			runId: string,
			life: number,
			item: string,
			traceparent?: string | null,
		): Promise<{ ok: boolean; inDoubt?: string[] }> => {
			const p = await prepare(runId, life);
			const entries = await store.entries(runId);
			const row = await store.run(runId);
			const doubts = journalState(entries).inDoubt.filter((v) => focusOf(v, item) === "inside");
			if (doubts.length && row?.inDoubt !== "rerun") {
				log(`item ${item} of ${runId}: ${inDoubtMessage(doubts)}`);
				return { ok: false, inDoubt: doubts };
			}
			const t = track(runId);
			const inside = (e: FlowEvent) =>
				"path" in e &&
				typeof e.path === "string" &&
				focusOf(e.path, item) === "inside" &&
				!("replayed" in e && e.replayed);
			const recorder = storeRecorder(store, runId, life, executor, { keep: inside, onFailure: (m) => t.abort(m) });
			// The item's span, under the map's span its coordinator sent: one trace across the workers.
			const traced = traceRun({
				flow: p.flow.name.value,
				run: runId,
				life,
				backend: "dbos",
				item,
				...(traceparent ? { parent: traceparent } : {}),
				bounds: p.flow.bounds,
				showReplayed: (path) => focusOf(path, item) === "inside",
				capture: captureWanted(process.env),
			});
			try {
				await runFlow(p.flow, p.row.snapshot.input, {
					...common(p, life, entries),
					signal: t.signal,
					recorder,
					replay: liveReplay(entries),
					onEvent: fanOutEvents(recorder.onEvent, traced.onEvent),
					...(traced.recording ? { requestEvents: true } : {}),
					focus: item,
					items: placement(runId, life, undefined, traced),
				});
				await recorder.drain();
				// The item's visits carry their own ends; the focused walk's result says nothing of the item.
				traced.end({ ok: true });
				return { ok: true };
			} finally {
				traced.end();
				t.done();
			}
		};

		DBOS.registerWorkflow(runWorkflow, { name: RUN_WORKFLOW });
		DBOS.registerWorkflow(itemWorkflow, { name: ITEM_WORKFLOW });
		DBOS.setConfig({
			name: DBOS_APP,
			systemDatabaseUrl: options.url,
			executorID: executor,
			applicationVersion: DBOS_APP_VERSION,
			runMigrations: false,
			logLevel: "error",
		});
		await DBOS.launch();
		await DBOS.registerQueue(RUN_QUEUE, { minPollingIntervalMs: pollMs, onConflict: "always_update" });
		await DBOS.registerQueue(ITEM_QUEUE, {
			workerConcurrency: options.slots ?? 8,
			minPollingIntervalMs: pollMs,
			onConflict: "always_update",
		});
		await store.heartbeat(executor, hostname(), process.pid);

		let beating = false;
		const beat = async () => {
			if (beating) return;
			beating = true;
			try {
				await store.heartbeat(executor, hostname(), process.pid);
				const stops = await store.stopsRequested([...running.keys()].filter((id) => running.get(id)?.size));
				for (const id of stops) for (const c of running.get(id) ?? []) c.abort(new Error("stopped"));
				for (const dead of await store.claimDead(executor, deadAfterMs)) {
					const pending = await DBOS.listWorkflows({ status: "PENDING", executorId: dead.executor });
					const byQueue = new Map<string, string[]>();
					for (const w of pending) {
						const q = w.queueName ?? RUN_QUEUE;
						byQueue.set(q, [...(byQueue.get(q) ?? []), w.workflowID]);
					}
					for (const [queueName, ids] of byQueue) await DBOS.resumeWorkflows(ids, { queueName });
					log(`took over ${pending.length} workflow(s) of ${dead.executor}, silent for ${dead.silentMs} ms`);
					options.onTakeover?.({ executor: dead.executor, silentMs: dead.silentMs, workflows: pending.length });
				}
			} catch (error) {
				log(`heartbeat: ${(error as Error).message}`);
			} finally {
				beating = false;
			}
		};
		timers.push(setInterval(() => void beat(), heartbeatMs));
		log(`worker ${executor} joined (slots ${options.slots ?? 8}, poll ${pollMs} ms)`);
		let stopping: Promise<void> | undefined;
		return {
			executor,
			stop() {
				stopping ??= (async () => {
					for (const t of timers) clearInterval(t);
					for (const set of running.values()) for (const c of set) c.abort(new Error("the worker is leaving"));
					await store.leave(executor).catch(() => {});
					await DBOS.shutdown({ deregister: true }).catch(() => {});
					await client?.destroy().catch(() => {});
					await store.close().catch(() => {});
					started = false;
				})();
				return stopping;
			},
		};
	} catch (error) {
		for (const t of timers) clearInterval(t);
		await DBOS.shutdown({ deregister: true }).catch(() => {});
		await client?.destroy().catch(() => {});
		await store.close().catch(() => {});
		started = false;
		throw error;
	}
}

/** Why a worker will not run a visit again by itself, and what the person does about it. */
function inDoubtMessage(visits: readonly string[]): string {
	return `in doubt: ${visits.join(", ")} may have written to the tree before its worker died; resume the run with --in-doubt rerun to run it again from its start`;
}

/** Reads a run from the store and makes it ready to run here: its flow from the snapshot, a pi host, its models. */
async function prepareRun(store: RunStore, runId: string, options: WorkerOptions): Promise<Prepared> {
	const row = await store.run(runId);
	if (!row) throw new Error(`no run ${runId} in the database`);
	const flow = fromSnapshot(row.snapshot);
	if ("error" in flow) throw new Error(flow.error);
	const s = row.snapshot.settings.script;
	const script = s ? readScript(s.text, s.file).value : undefined;
	const host = await openHost({
		cwd: options.cwd,
		agentDir: options.agentDir,
		projectTrusted: options.projectTrusted ?? false,
		...(script ? { script } : {}),
	});
	const models = await snapshotModels(host, row.snapshot)(flow.value, row.snapshot);
	if (Array.isArray(models)) throw new Error(models.join("; "));
	// Every worker reads the run it reuses from the same database, so they all take the same visits.
	const from = row.snapshot.settings.reuse;
	const force = row.snapshot.settings.rerunFrom;
	const reuse = from ? reuseSource(await store.entries(from), from, force ? { force } : {}) : undefined;
	return { row, flow: flow.value, host, models, ...(reuse ? { reuse } : {}) };
}

/** Every turn's usage in the journal (agent and swarm visits; blocks only sum their children). */
export function journalUsage(entries: readonly JournalEntry[], _life?: number): Usage {
	let total = emptyUsage();
	for (const e of entries)
		if (e.type === "visit_end" && LANGUAGE.modelTurns.has(e.kind)) total = addUsage(total, { ...e.usage, ms: 0 });
	return total;
}

/**
 * The status a run's row keeps when its last life ends: a stop of the failure table (a person's stop, a
 * spent budget, a `blocked` agent, a sibling's fail-fast) is `stopped`, as the run folder's report calls it
 * cut and a resume takes it up; any other failure is `failed`.
 */
export function runStatus(result: { ok: boolean; errorKind?: FailureKind }): "ok" | "stopped" | "failed" {
	if (result.ok) return "ok";
	return result.errorKind !== undefined && FAILURE_KIND_TABLE[result.errorKind].stop ? "stopped" : "failed";
}
