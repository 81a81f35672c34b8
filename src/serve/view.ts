/**
 * A run's page as data: a pure function of the run's record and the time, so the page shows what the
 * journal and the events say and nothing the page assumed. Visits, lives and node states come from the
 * report's model (`runModel`), usage from the journal (`usageOf`), lanes from the report's packing, the
 * turns in flight from the current life's events (`turns.ts`), what a resume would refuse from the
 * journal's state (`journalState`, `decidedByFlow`), as the CLI decides it.
 *
 *   record (journal, events, lock, questions) ──viewOf──► { head, nodes, visits, lanes, turns, … }
 */
import { boundsUnder } from "../language/render/index.ts";
import { DEFAULT_IDLE_MS } from "../engine/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import { lanesOf, parallelAddresses, type RunData, runModel, shown, clip, type VisitSpan } from "../report/index.ts";
import { decidedByFlow, journalState, usageOf } from "../runs/index.ts";
import { visitAddressOf } from "../reuse/index.ts";
import { addressOf, type Usage, visitSteps } from "../runtime/index.ts";
import type { RunRecord, WaitingQuestion } from "./record.ts";
import { type ReuseView, reuseView } from "./reuse-view.ts";
import { turnsOf, type TurnView } from "./turns.ts";

/** How the run stands now. */
export type RunStatus =
	| "running"
	| "waiting"
	| "stalled"
	| "queued"
	| "stopping"
	| "dead"
	| "ok"
	| "failed"
	| "stopped";

/** An action the run's state allows, or why not, in words the page shows as they are. */
export type Allowed = { ok: true } | { ok: false; why: string };

/** A node address as the graph colours it; `running` while a visit of the current life is open in a live run. */
export type LiveNodeState = "running" | "done" | "failed" | "cut" | "never";

export interface NodeView {
	state: LiveNodeState;
	visits: number;
	failed: number;
	running: number;
	tokens: number;
	cost: number;
	/** Busy time of its turns (ms). */
	ms: number;
	/** The worst case the checker knows: turns and time. */
	bound?: { turns: number; ms: number; waits: boolean };
	/** Tokens its reused visits had spent when they were played (counted 0 here). */
	saved?: number;
}

export interface VisitView {
	path: string;
	address: string;
	kind: string;
	life: number;
	start: number;
	/** Absent while it runs. */
	end?: number;
	state: "running" | "done" | "failed" | "cut";
	agent?: string;
	model?: string;
	error?: string;
	tokens?: number;
	cost?: number;
	/** Its lane (index into `lanes`) and its depth in the lane's strand. */
	lane: number;
	depth: number;
	/** Taken from the run it reused, not played: what it had spent then (tokens). */
	saved?: number;
}

export interface RunHead {
	id: string;
	source: RunRecord["source"];
	where: string;
	flow: string;
	description: string;
	file: string;
	started: string;
	life: number;
	lifeStart: number;
	status: RunStatus;
	/** One sentence: what the status means for this run. */
	statusText: string;
	/** The server's clock when this view was made, so the page draws running bars against it. */
	now: number;
	lastRecordAt: number;
	idleMs: number;
	sealed: boolean;
	project: boolean;
}

/** Everything a run's page draws. */
export interface RunView {
	head: RunHead;
	totals: { usage: Usage; turns: number; wallMs: number };
	budget?: { limits: Record<string, number>; spent: { tokens: number; cost: number; turns: number } };
	bounds: { turns: number; ms: number; waits: boolean; timeoutMs?: number; idleMs: number };
	nodes: Record<string, NodeView>;
	/** Keyed `life:path`: a visit run again in a later life is another bar. */
	visits: Record<string, VisitView>;
	lanes: string[];
	turns: Record<string, TurnView>;
	retries: { path: string; attempt: number; reason: string; message: string; delayMs: number; at: string }[];
	faults: { life: number; path?: string; text: string }[];
	inDoubt: string[];
	questions: WaitingQuestion[];
	asked: { path: string; question: string; answer: string }[];
	outcome?: { ok: boolean; output?: string; error?: string; failedAt?: string };
	notes: string[];
	/** What it took from the run it reused (`--reuse`, a rerun from a node). */
	reuse?: ReuseView;
	actions: { answer: Allowed; stop: Allowed; resume: Allowed; rerun: Allowed };
}

const LIVE: ReadonlySet<RunStatus> = new Set(["running", "waiting", "stalled", "queued", "stopping"]);

/** Whether a status means a process (or a worker) may still be running the run. */
export function isLive(status: RunStatus): boolean {
	return LIVE.has(status);
}

/** The view of `record` at `now`. */
export function viewOf(record: RunRecord, now: number): RunView {
	const { snapshot, journal } = record;
	const data: RunData = {
		dir: record.where,
		snapshot,
		...(record.flow ? { flow: record.flow } : {}),
		journal,
		events: record.events,
		usage: usageOf(journal, snapshot.settings.budget),
		usageFromFile: false,
		...(record.result ? { result: record.result } : {}),
		problems: record.problems,
		troubles: record.troubles,
	};
	const model = runModel(data);
	const life = Math.max(0, ...journal.flatMap((e) => (e.type === "life_start" ? [e.life] : [])));
	const lastEnd = journal.findLast((e) => e.type === "run_end");
	const ended = lastEnd?.type === "run_end" && lastEnd.life === life ? lastEnd : undefined;
	const idleMs = snapshot.settings.idleTimeoutMs ?? DEFAULT_IDLE_MS;
	const { status, text } = statusOf(record, life, ended, now, idleMs);
	const live = isLive(status);
	const state = journalState(journal);
	const usage = data.usage;
	// Visits of the current life that never ended are running while the run is live, cut otherwise.
	const isRunning = (v: VisitSpan) => live && v.life === life && v.state === "cut" && !v.error;
	const byPath = new Map<string, { tokens: number; cost: number }>();
	for (const v of usage.visits) byPath.set(`${v.life}:${v.path}`, { tokens: v.usage.totalTokens, cost: v.usage.cost });
	const parallels = record.flow ? parallelAddresses(record.flow) : new Set<string>();
	const current = model.visits.filter((v) => v.life === life);
	const lanes = lanesOf(current, parallels);
	const laneOf = new Map<VisitSpan, number>();
	lanes.forEach((l, i) => {
		for (const v of l.visits) laneOf.set(v, i);
	});
	const reuse = reuseView(journal);
	const visits: Record<string, VisitView> = {};
	for (const v of model.visits) {
		const running = isRunning(v);
		const paid = byPath.get(`${v.life}:${v.path}`);
		visits[`${v.life}:${v.path}`] = {
			path: v.path,
			address: addressOf(v.path),
			kind: v.kind,
			life: v.life,
			start: v.start,
			...(running ? {} : { end: v.end }),
			state: running ? "running" : v.state,
			...(v.agent ? { agent: v.agent } : {}),
			...(v.model ? { model: v.model } : {}),
			...(v.error ? { error: v.error } : {}),
			...(paid ? { tokens: paid.tokens, cost: paid.cost } : {}),
			lane: laneOf.get(v) ?? -1,
			depth: visitSteps(v.path).length - 1,
			...(reuse?.visits[`${v.life}:${v.path}`] !== undefined ? { saved: reuse.visits[`${v.life}:${v.path}`] } : {}),
		};
	}
	const bounds = record.flow ? boundsUnder(record.flow, snapshot.settings.timeoutMs) : undefined;
	// The checker keys a node by its ids (`par/a`), its visits by their address (`par/left/a`): one row each.
	const visitAddress = record.flow ? visitAddressOf(record.flow) : new Map<string, string>();
	const boundOf = new Map([...(bounds?.nodes ?? [])].map(([path, b]) => [visitAddress.get(path) ?? path, b]));
	const nodes: Record<string, NodeView> = {};
	const addresses = new Set([...model.nodes.keys(), ...boundOf.keys()]);
	for (const address of addresses) {
		const s = model.nodes.get(address);
		const running = Object.values(visits).filter((v) => v.address === address && v.state === "running").length;
		const paid = usage.nodes[address]?.usage;
		const bound = boundOf.get(address);
		nodes[address] = {
			state: running ? "running" : (s?.state ?? "never"),
			visits: s?.visits ?? 0,
			failed: s?.failed ?? 0,
			running,
			tokens: paid?.totalTokens ?? 0,
			cost: paid?.cost ?? 0,
			ms: paid?.ms ?? 0,
			...(bound ? { bound: { turns: bound.turns, ms: bound.ms, waits: bound.waits } } : {}),
			...(reuse?.nodes[address] ? { saved: reuse.nodes[address] } : {}),
		};
	}
	const lifeSpan = model.lives.find((l) => l.life === life);
	const lifeEvents = record.events.filter((e) => e.life === life);
	// The journal's end is this life's; result.json may still be an earlier life's while this one ends.
	const output = ended?.ok ? (ended.output ?? record.result?.output) : undefined;
	const problems = [...record.problems];
	const faults: RunView["faults"] = [
		...model.visits
			.filter((v) => v.state === "failed")
			.map((v) => ({ life: v.life, path: v.path, text: v.error ?? "failed" })),
		...model.lives.filter((l) => l.error).map((l) => ({ life: l.life, text: l.error as string })),
		...problems.map((p) => ({ life, text: p })),
	];
	const notes = lifeEvents.flatMap((e) =>
		e.type === "budget_warning"
			? [`budget warning: ${e.spent}`]
			: e.type === "budget_exhausted" || e.type === "budget_unpriced"
				? [`budget: ${e.reason}`]
				: [],
	);
	return {
		head: {
			id: record.id,
			source: record.source,
			where: record.where,
			flow: snapshot.flow.name,
			description: record.flow?.description.value ?? "",
			file: snapshot.flow.file,
			started: snapshot.createdAt,
			life,
			lifeStart: lifeSpan?.start ?? Date.parse(snapshot.createdAt),
			status,
			statusText: text,
			now,
			lastRecordAt: record.lastRecordAt,
			idleMs,
			sealed: record.sealed,
			project: record.project,
		},
		totals: {
			usage: usage.total,
			turns: usage.visits.filter((v) => LANGUAGE.modelTurns.has(v.kind) && v.usage.requests > 0).length,
			wallMs: model.lives.reduce((s, l) => s + (l.end - l.start), 0) + (live && lifeSpan ? now - lifeSpan.end : 0),
		},
		...(usage.budget
			? { budget: { limits: { ...usage.budget.limits } as Record<string, number>, spent: usage.budget.spent } }
			: {}),
		bounds: {
			turns: bounds?.total.turns ?? 0,
			ms: bounds?.total.ms ?? 0,
			waits: bounds?.total.waits ?? false,
			...(snapshot.settings.timeoutMs !== undefined ? { timeoutMs: snapshot.settings.timeoutMs } : {}),
			idleMs,
		},
		nodes,
		visits,
		lanes: lanes.map((l) => (l.fan === "" ? "run" : `${l.fan} ${l.members.join(" ")}`)),
		turns: live ? turnsOf(lifeEvents) : {},
		retries: lifeEvents
			.flatMap((e) =>
				e.type === "provider_retry"
					? [{ path: e.path, attempt: e.attempt, reason: e.reason, message: e.message, delayMs: e.delayMs, at: e.at }]
					: [],
			)
			.slice(-50),
		faults,
		inDoubt: state.inDoubt,
		questions: live ? record.questions.filter((q) => q.life === life) : [],
		asked: journal.flatMap((e) =>
			e.type === "asked" ? [{ path: e.path, question: e.question, answer: answerText(e.answer) }] : [],
		),
		...(ended
			? {
					outcome: {
						ok: ended.ok,
						...(output !== undefined && ended.ok ? { output: clip(shown(output), 200_000) } : {}),
						...(ended.error ? { error: ended.error } : {}),
						...(ended.failedAt ? { failedAt: ended.failedAt } : {}),
					},
				}
			: {}),
		notes,
		...(reuse ? { reuse } : {}),
		actions: actionsOf(record, status, state, live),
	};
}

function answerText(answer: { kind: string; value?: unknown }): string {
	if (answer.kind === "answer")
		return typeof answer.value === "boolean" ? (answer.value ? "yes" : "no") : String(answer.value);
	return (
		{ enough: "that's enough", stopped: "stopped", timeout: "no answer in time", nobody: "nobody there" }[
			answer.kind as "enough"
		] ?? answer.kind
	);
}

function statusOf(
	record: RunRecord,
	life: number,
	ended: { ok: boolean; errorKind?: string; error?: string } | undefined,
	now: number,
	idleMs: number,
): { status: RunStatus; text: string } {
	if (ended) {
		if (ended.ok) return { status: "ok", text: "the run ended well" };
		if (ended.errorKind === "stopped") return { status: "stopped", text: "the run was stopped; a resume picks it up" };
		return { status: "failed", text: `the run failed${ended.error ? `: ${ended.error}` : ""}` };
	}
	const quiet = now - record.lastRecordAt;
	const silent = quiet > idleMs;
	const p = record.process;
	if (p.kind === "dbos") {
		if (p.broken) return { status: "dead", text: p.broken };
		if (p.status === "enqueued") return { status: "queued", text: "waiting for a worker to pick it up" };
		if (p.status === "running") {
			if (p.stopRequested) return { status: "stopping", text: "asked to stop; its workers land its turns" };
			if (record.questions.some((q) => q.life === life))
				return { status: "waiting", text: "waiting for a person to answer" };
			if (silent)
				return { status: "stalled", text: `no event for ${Math.round(quiet / 1000)}s, past its idle timeout` };
			return { status: "running", text: "its workers are running it" };
		}
		if (p.status === "ok") return { status: "ok", text: "the run ended well" };
		if (p.status === "stopped") return { status: "stopped", text: "the run was stopped" };
		return { status: "failed", text: `the run's status is ${p.status}` };
	}
	const lock = p.lock;
	if (!lock)
		return { status: "dead", text: "no process holds the run and it did not end: it was cut (a crash, a kill)" };
	if (lock.alive === false)
		return { status: "dead", text: `its process (pid ${lock.pid}) is gone and the run did not end: it was cut` };
	const where = lock.alive === undefined ? ` on ${lock.host}` : "";
	if (p.stopAsked) return { status: "stopping", text: `asked to stop; pid ${lock.pid}${where} lands its turns` };
	if (record.questions.some((q) => q.life === life))
		return { status: "waiting", text: `pid ${lock.pid}${where} waits for an answer` };
	if (silent)
		return {
			status: "stalled",
			text: `pid ${lock.pid}${where} is there, but no event for ${Math.round(quiet / 1000)}s, past its idle timeout`,
		};
	return { status: "running", text: `running in pid ${lock.pid}${where}` };
}

function actionsOf(
	record: RunRecord,
	status: RunStatus,
	state: ReturnType<typeof journalState>,
	live: boolean,
): RunView["actions"] {
	const no = (why: string): Allowed => ({ ok: false, why });
	const yes: Allowed = { ok: true };
	const mine = record.sealed
		? undefined
		: "this run folder was not made here by you (its seal does not check), so nothing here acts on it";
	const stop = mine
		? no(mine)
		: status === "stopping"
			? no("a stop was asked already")
			: live
				? yes
				: no(`the run is ${status}: there is nothing to stop`);
	const answer = mine ? no(mine) : status === "waiting" ? yes : no("the run waits on no question");
	let resume: Allowed;
	if (mine) resume = no(mine);
	else if (live) resume = no(`the run is ${status}; stop it first`);
	else if (state.end?.ok) resume = no("the run ended well; there is nothing to resume");
	else if (state.end && decidedByFlow(state.end.errorKind, state.causeKind))
		resume = no(`the run failed by the flow's own decision at ${state.end.failedAt}; a resume would decide the same`);
	else resume = yes;
	// A rerun reads the run's ended visits: a run still going has no end to read yet.
	const rerun = mine
		? no(mine)
		: live
			? no(`the run is ${status}: a rerun starts from a run that ended (stop it first, or let it end)`)
			: yes;
	return { answer, stop, resume, rerun };
}

/** A run as the runs list shows it. */
export interface RunSummary {
	source: RunRecord["source"];
	id: string;
	flow: string;
	where: string;
	started: string;
	life: number;
	status: RunStatus;
	statusText: string;
	tokens: number;
	cost: number;
	sealed: boolean;
}

/** The list's line of a run: the same status words as its page, from the journal alone. */
export function summaryOf(record: RunRecord, now: number): RunSummary {
	const { snapshot, journal } = record;
	const life = Math.max(0, ...journal.flatMap((e) => (e.type === "life_start" ? [e.life] : [])));
	const lastEnd = journal.findLast((e) => e.type === "run_end");
	const ended = lastEnd?.type === "run_end" && lastEnd.life === life ? lastEnd : undefined;
	const idleMs = snapshot.settings.idleTimeoutMs ?? DEFAULT_IDLE_MS;
	const { status, text } = statusOf(record, life, ended, now, idleMs);
	const total = usageOf(journal).total;
	return {
		source: record.source,
		id: record.id,
		flow: snapshot.flow.name,
		where: record.where,
		started: snapshot.createdAt,
		life,
		status,
		statusText: text,
		tokens: total.totalTokens,
		cost: total.cost,
		sealed: record.sealed,
	};
}
