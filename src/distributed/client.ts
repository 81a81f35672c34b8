/**
 * What any machine that reaches the database does with runs on the DBOS backend, without being a worker:
 * enqueue a run (its snapshot into the store, its workflow onto the runs queue), follow it live (its
 * events as workers record them), list runs, ask one to stop, and start its next life (a resume).
 */
import { randomBytes } from "node:crypto";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { AskPort, FlowResult } from "../engine/index.ts";
import type { FlowEvent } from "../runtime/index.ts";
import type { Snapshot } from "../runs/index.ts";
import { decidedByFlow, journalState, usageOf, type UsageFile } from "../runs/index.ts";
import { answerQuestions } from "./questions.ts";
import type { RunStore } from "./store.ts";
import { DBOS_APP, DBOS_APP_VERSION, RUN_QUEUE, RUN_WORKFLOW, runWorkflowId } from "./worker.ts";

/** A run id: time-sorted like a run folder's name, with the flow's name and a few random letters. */
export function newRunId(flow: string, now = new Date()): string {
	const stamp = now.toISOString().replace(/[:.]/g, "-").replace("T", "_").replace("Z", "");
	return `${stamp}-${flow}-${randomBytes(3).toString("hex")}`;
}

/** Enqueues a life of a run on the runs queue; any worker dequeues it. */
export async function enqueueLife(url: string, runId: string, life: number): Promise<void> {
	const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: DBOS_APP });
	try {
		await client.enqueue(
			{
				queueName: RUN_QUEUE,
				workflowName: RUN_WORKFLOW,
				workflowID: runWorkflowId(runId, life),
				appVersion: DBOS_APP_VERSION,
			},
			runId,
			life,
		);
	} finally {
		await client.destroy();
	}
}

/** Puts a new run in the database and enqueues its first life; resolves to its id. */
export async function enqueueRun(store: RunStore, url: string, snapshot: Snapshot): Promise<string> {
	const id = newRunId(snapshot.flow.name);
	await store.createRun(id, snapshot);
	await enqueueLife(url, id, 1);
	return id;
}

/** A next life started, or why a run cannot be resumed (in the words `pi-flows resume` prints). */
export type NextLife = { ok: true; life: number; after: number } | { ok: false; refused: string };

/**
 * Starts a run's next life, from any machine reaching its database: its journal decides as a run folder's
 * does (a run that ended well, or failed by the flow's own decision, is refused; a turn cut after it may
 * have written is in doubt until `inDoubt` is `rerun`), and a run still going is refused. `after`: the
 * last event of the earlier lives, so a follower reads only the new life's.
 */
export async function startNextLife(
	store: RunStore,
	url: string,
	id: string,
	inDoubt: "stop" | "rerun",
): Promise<NextLife> {
	const row = await store.run(id);
	if (!row) return { ok: false, refused: `no run ${id} in this database (see pi-flows runs)` };
	const live = row.status === "running" || row.status === "enqueued";
	if (live && !(await workflowFailure(store, runWorkflowId(id, row.life))))
		return { ok: false, refused: `cannot resume: ${id} is ${row.status}; \`pi-flows stop ${id}\` first` };
	const state = journalState(await store.entries(id));
	if (state.end?.ok) return { ok: false, refused: "cannot resume: the run ended well; there is nothing to resume" };
	if (state.end && decidedByFlow(state.end.errorKind, state.causeKind))
		return { ok: false, refused: `cannot resume: the run failed by the flow's own decision at ${state.end.failedAt}` };
	if (state.inDoubt.length && inDoubt !== "rerun")
		return {
			ok: false,
			refused: `cannot resume: in doubt: ${state.inDoubt.join(", ")} may have written before the cut; resume with --in-doubt rerun`,
		};
	const life = await store.nextLife(id, inDoubt);
	const seen = await store.eventsAfter(id, 0, 1_000_000);
	await enqueueLife(url, id, life);
	return { ok: true, life, after: seen.at(-1)?.seq ?? 0 };
}

/** Why a run's workflow ended without the run's end (DBOS's status ERROR or CANCELLED), or undefined. */
export async function workflowFailure(store: RunStore, workflowId: string): Promise<string | undefined> {
	const r = await store.pool
		.query<{ status: string; error: string | null }>(
			"SELECT status, error FROM dbos.workflow_status WHERE workflow_uuid = $1",
			[workflowId],
		)
		.catch(() => ({ rows: [] as { status: string; error: string | null }[] }));
	const row = r.rows[0];
	if (!row || !["ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"].includes(row.status)) return undefined;
	let why = row.error ?? "";
	try {
		const parsed = JSON.parse(why) as { message?: string; json?: { message?: string } };
		why = parsed.message ?? parsed.json?.message ?? why;
	} catch {}
	return `the run's workflow ended ${row.status} on its worker${why ? `: ${why}` : ""}; \`pi-flows resume\` starts its next life`;
}

/** Statuses a run stays in once its life ended. */
export const ENDED = new Set(["ok", "failed", "stopped"]);

/** How a followed run ended: its result as the coordinator recorded it, and its usage from the journal. */
export interface FollowedRun {
	result: FlowResult;
	usage: UsageFile;
	status: string;
}

/**
 * Follows a run until its current life ends: every event recorded so far and from now on goes to
 * `onEvent`, in order. `signal` stops following (the run goes on). With `ask` (a person at this terminal),
 * the run's workers' questions are put to the person here and their answers written back.
 */
export async function followRun(
	store: RunStore,
	runId: string,
	options: {
		onEvent?: (event: FlowEvent) => void;
		signal?: AbortSignal;
		pollMs?: number;
		after?: number;
		/** The life to wait for (a resume's); default the run's current one. */
		life?: number;
		/** Who answers the run's questions; without one (or with nobody there) they are not answered here. */
		ask?: AskPort;
	} = {},
): Promise<FollowedRun | { stoppedFollowing: true }> {
	let seq = options.after ?? 0;
	const pollMs = options.pollMs ?? 200;
	for (;;) {
		const events = await store.eventsAfter(runId, seq);
		for (const e of events) {
			seq = e.seq;
			options.onEvent?.(e.event as unknown as FlowEvent);
		}
		if (events.length) continue;
		const row = await store.run(runId);
		if (!row) throw new Error(`no run ${runId} in the database`);
		if (ENDED.has(row.status) && row.result && (options.life === undefined || row.life === options.life)) {
			// Events written just before the end are read before it is reported.
			const last = await store.eventsAfter(runId, seq);
			for (const e of last) options.onEvent?.(e.event as unknown as FlowEvent);
			const entries = await store.entries(runId);
			return {
				result: row.result as FlowResult,
				usage: usageOf(entries, row.snapshot.settings.budget),
				status: row.status,
			};
		}
		// A workflow that failed as a program (a worker's error, not the flow's) never writes the run's end.
		const broken = await workflowFailure(store, runWorkflowId(runId, row.life));
		if (broken) {
			const entries = await store.entries(runId);
			return {
				result: {
					flow: row.flow,
					ok: false,
					output: "",
					error: broken,
					errorKind: "unavailable",
					visits: [],
					usage: { ...usageOf(entries).total, ms: 0 },
				} as FlowResult,
				usage: usageOf(entries, row.snapshot.settings.budget),
				status: "failed",
			};
		}
		if (options.signal?.aborted) return { stoppedFollowing: true };
		if (options.ask?.somebodyThere && (await answerQuestions(store, runId, options.ask, options.signal))) continue;
		await new Promise((r) => setTimeout(r, pollMs));
	}
}
