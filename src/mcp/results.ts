/**
 * What a flow tool and the `run_*` tools hand back: one report shape (the tools' `outputSchema`) for a
 * run under way in this server, one just ended, one read from its folder (an earlier server's, or a CLI
 * run's) and one read from the DBOS backend's database. A folder is read only when its seal says this
 * person made it here, as `pi-flows resume` reads one; its journal says how it ended, its lock whether a
 * process still runs it.
 *
 *   { status: "ok", run: "2026-…-explore", answer: "…", usage: { tokens: 812, cost: 0, turns: 4 } }
 *   { status: "running", run: "…", next: "call run_result with {\"run\":\"…\"} to wait for it" }
 */
import { join, relative } from "node:path";
import type { Budget } from "../engine/index.ts";
import {
	decidedByFlow,
	type JournalEntry,
	journalState,
	lockHolder,
	readJournal,
	sealedRun,
	usageOf,
} from "../runs/index.ts";
import { FAILURE_KIND_TABLE, type FailureKind, readFailureKind, type Usage } from "../runtime/index.ts";
import { redactJson } from "../secrets/index.ts";
import type { AskNote, Backend, LiveRun } from "./live-run.ts";

/** How a run stands. */
export type RunStatus = "running" | "waiting" | "ok" | "failed" | "stopped" | "interrupted";

/** The structured result of every run tool. */
export interface RunReport {
	status: RunStatus;
	/** The handle: the run folder's name under the runs folder, or the run's id in the DBOS database. */
	run: string;
	flow: string;
	/** The run folder, from the server's working folder (the folder backend; a DBOS run has none). */
	runDir?: string;
	/** The run's answer (the last root node's output) when it ended well. */
	answer?: unknown;
	error?: string;
	errorKind?: string;
	failedAt?: string;
	/** Whether `run_resume` can pick it up (stopped, or failed for a reason the flow did not decide). */
	resumable?: boolean;
	usage: { tokens: number; cost: number; turns: number; ms: number };
	/** Visits ended so far. */
	visits: number;
	/** Each question the run asked, and how it was answered or why the unattended rules applied. */
	asks: AskNote[];
	/** The question the run waits on. */
	question?: string;
	/** What to do next, in a sentence a host's model can follow. */
	next?: string;
}

const USAGE = {
	type: "object",
	properties: {
		tokens: { type: "number" },
		cost: { type: "number" },
		turns: { type: "number" },
		ms: { type: "number" },
	},
	required: ["tokens", "cost", "turns", "ms"],
} as const;

/** {@link RunReport} as JSON Schema: every run tool's `outputSchema`. */
export const RUN_REPORT_SCHEMA = {
	type: "object",
	properties: {
		status: { type: "string", enum: ["running", "waiting", "ok", "failed", "stopped", "interrupted"] },
		run: { type: "string", description: "The run's handle for run_status, run_result, run_stop and run_resume." },
		flow: { type: "string" },
		runDir: { type: "string" },
		answer: { description: "The run's answer: text, or the flow's typed output." },
		error: { type: "string" },
		errorKind: { type: "string" },
		failedAt: { type: "string" },
		resumable: { type: "boolean" },
		usage: USAGE,
		visits: { type: "number" },
		asks: {
			type: "array",
			items: {
				type: "object",
				properties: {
					visit: { type: "string" },
					question: { type: "string" },
					via: { type: "string" },
					answer: { type: ["string", "boolean"] },
				},
				required: ["visit", "question", "via"],
			},
		},
		question: { type: "string" },
		next: { type: "string" },
	},
	required: ["status", "run", "flow", "usage", "visits", "asks"],
} as const;

function usageOfRun(u: Usage, turns: number): RunReport["usage"] {
	return { tokens: u.totalTokens, cost: u.cost, turns, ms: Math.round(u.ms) };
}

/**
 * A run that ended in a stop (the failure table's `stop`: a person's stop, a fail-fast cut, a spent budget,
 * an agent finishing `blocked`) is `stopped`, not `failed`: a resume runs the stopped visit again. The
 * table decides, as it does for the walk, the resume and the report.
 */
function stopped(kind: FailureKind | undefined): boolean {
	return kind !== undefined && FAILURE_KIND_TABLE[readFailureKind(kind)].stop;
}

/** A live run's report: its outcome once ended, else how far it got. */
export function liveReport(run: LiveRun, cwd: string): RunReport {
	const base = {
		run: run.id,
		flow: run.flow,
		...(run.runDir ? { runDir: relative(cwd, run.runDir) || "." } : {}),
		asks: [...run.asks],
	};
	const outcome = run.outcome();
	if (outcome) {
		const r = outcome.result;
		const turns = r.visits.filter((v) => (v.usage?.requests ?? 0) > 0).length;
		const cause = r.visits.findLast((v) => v.path === r.failedAt)?.errorKind;
		return redactJson({
			...base,
			status: r.ok ? "ok" : stopped(r.errorKind) ? "stopped" : "failed",
			...(r.ok ? { answer: r.output } : {}),
			...(r.error ? { error: r.error } : {}),
			...(r.errorKind ? { errorKind: r.errorKind } : {}),
			...(r.failedAt ? { failedAt: r.failedAt } : {}),
			...(r.ok ? {} : { resumable: !decidedByFlow(r.errorKind, cause) }),
			usage: usageOfRun(outcome.usage.total, turns),
			visits: r.visits.length,
			...(r.ok ? {} : { next: nextAfterFailure(r.errorKind, cause, resumeHint(run.id, run.backend, base.runDir)) }),
		} satisfies RunReport);
	}
	const question = run.pending();
	return redactJson({
		...base,
		status: question ? "waiting" : "running",
		usage: run.usage() ?? { tokens: 0, cost: 0, turns: 0, ms: Date.now() - run.startedAt },
		visits: run.progress().ended,
		...(question ? { question: question.card.question } : {}),
		next: question
			? `the run waits for an answer to "${question.card.question}"; call run_result with {"run":"${run.id}"} from a client that shows forms to answer it`
			: `the run goes on; call run_result with {"run":"${run.id}"} to wait for it, or run_stop to stop it`,
	} satisfies RunReport);
}

/** How a host picks a stopped run up: the tool, and the command line for a person. */
export function resumeHint(run: string, backend: Backend, runDir?: string): string {
	const cli = backend === "dbos" ? `pi-flows resume ${run} --backend dbos` : `pi-flows resume ${runDir ?? run}`;
	return `call run_resume with {"run":"${run}"} (or run \`${cli}\`) to pick it up where it stopped`;
}

function nextAfterFailure(kind: string | undefined, cause: string | undefined, resume: string): string {
	if (decidedByFlow(kind as FailureKind | undefined, cause as FailureKind | undefined))
		return "the flow itself decided this; change the flow, the script or the input and run again";
	return resume;
}

/** A run's report from the facts its journal holds (a folder's file, or the DBOS database's rows). */
export function journalReport(
	entries: readonly JournalEntry[],
	where: { run: string; flow: string; backend: Backend; runDir?: string; running: boolean; budget?: Budget },
): RunReport {
	const state = journalState(entries);
	const usage = usageOf(entries, where.budget);
	const asks: AskNote[] = entries.flatMap((e) =>
		e.type === "asked"
			? [
					{
						visit: e.path,
						question: e.question,
						via: ("via" in e.answer ? e.answer.via : undefined) ?? e.answer.kind,
						...(e.answer.kind === "answer" ? { answer: e.answer.value } : {}),
					},
				]
			: [],
	);
	const end = state.end;
	let status: RunStatus;
	if (end) status = end.ok ? "ok" : stopped(end.errorKind) ? "stopped" : "failed";
	else status = where.running ? "running" : "interrupted";
	const resumable =
		status === "stopped" ||
		status === "interrupted" ||
		(status === "failed" && !decidedByFlow(end?.errorKind, state.causeKind));
	const visits = [...state.endedCount.values()].reduce((a, b) => a + b, 0);
	return redactJson({
		status,
		run: where.run,
		flow: where.flow || where.run,
		...(where.runDir ? { runDir: where.runDir } : {}),
		...(end?.ok ? { answer: end.output } : {}),
		...(end?.error ? { error: end.error } : {}),
		...(end?.errorKind ? { errorKind: end.errorKind } : {}),
		...(end?.failedAt ? { failedAt: end.failedAt } : {}),
		...(status === "ok" || status === "running" ? {} : { resumable }),
		usage: usageOfRun(usage.total, state.spent.turns),
		visits,
		asks,
		...(status === "running"
			? {
					next:
						where.backend === "dbos"
							? `its workers run it; call run_result with {"run":"${where.run}"} to wait for it, or run_stop to stop it`
							: "another process runs it; its own terminal or server follows it",
				}
			: resumable && status !== "ok"
				? { next: resumeHint(where.run, where.backend, where.runDir) }
				: {}),
	} satisfies RunReport);
}

/** A run folder's report from its journal, or why it cannot be read (not a run, not this person's). */
export function diskReport(
	runDir: string,
	cwd: string,
	keyDir?: string,
): { ok: true; report: RunReport } | { ok: false; error: string } {
	const sealed = sealedRun(runDir, keyDir);
	if (!sealed.ok) return { ok: false, error: sealed.error };
	// The lock before the journal: a run writes its end and then lets go of its lock, so a lock read first
	// never says "nobody runs it" of a journal read without its end.
	const lock = lockHolder(runDir);
	const journal = readJournal(join(runDir, "journal.jsonl"));
	if (!journal.ok) return { ok: false, error: journal.error };
	const run = runDir.split(/[\\/]/).pop() ?? runDir;
	return {
		ok: true,
		report: journalReport(journal.entries, {
			run,
			flow: sealed.snapshot.flow.name,
			backend: "folder",
			runDir: relative(cwd, runDir) || ".",
			// Held by a process alive here, or by another host's, whose processes this one cannot see.
			running: lock !== undefined && lock.alive !== false,
		}),
	};
}
