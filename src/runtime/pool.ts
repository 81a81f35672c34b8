/**
 * Where a workflow's turns are played. A combinator only says who speaks, in what order, and what is done
 * with the answer; the pool spawns, applies the workflow's signal, deadline and model, keeps or closes
 * subagents by lifetime, records every turn on the trail and closes everything it opened.
 *
 *   const pool = createPool({ cwd, spawn, lifetime: "workflow" });
 *   try { await pool.turn(coder, "write it"); await pool.turn(coder, "again, better"); }
 *   finally { await pool.closeAll(); }
 */
import type { AgentDef } from "../agents/index.ts";
import { abortFailure } from "./abort.ts";
import { budgetedSpawn } from "./budget.ts";
import type { Failure } from "./failure.ts";
import { flatFailure, type Result } from "./result.ts";
import type { Spawn, Subagent } from "./subagent.ts";
import { createTrail, type Trail } from "./trail.ts";
import { emptyUsage } from "./usage.ts";
import { safeListener, type WorkflowEvent } from "./workflow-events.ts";
import type { Lifetime, WorkflowOptions } from "./workflow-options.ts";

/** Options of one turn or hold. */
export interface TurnOptions {
	/**
	 * Who shares a memory: in `"workflow"` lifetime (and for holds) one subagent lives per agent and key.
	 * Default: the agent's name. A fan-out passes the branch so two branches never meet.
	 */
	key?: string;
	/**
	 * Names the turn for the scripted model and the events. Default: `<key>#<n>`, the n-th turn (from 1)
	 * played under that key in this pool, prefixed by `path/` when the workflow has a path.
	 */
	label?: string;
}

/** A subagent held for a conversation: it lives until `closeAll` (or its own `close`) whatever the lifetime. */
export interface Held {
	/** The subagent's id (its name on a swarm's board); the key when it was refused or failed to spawn. */
	readonly id: string;
	readonly agent: string;
	/** One more turn of the conversation; refused (`aborted`) once the signal aborted or the pool closed. */
	ask(task: string, options?: { label?: string }): Promise<Result>;
	/** Closes it early (a member dropping out); later asks fail. Idempotent. */
	close(): Promise<void>;
}

/** A workflow's turns, played. */
export interface SubagentPool {
	readonly options: WorkflowOptions;
	/** Every turn played, refusals included. */
	readonly trail: Trail;
	/** One question, one answer. Never throws for a failed turn. */
	turn(agent: AgentDef, task: string, options?: TurnOptions): Promise<Result>;
	/** Opens (or finds, by key) a subagent for several turns in a row. */
	hold(agent: AgentDef, options?: TurnOptions): Promise<Held>;
	/** Closes every session, even when some close fails; waits for turns in flight. Idempotent. */
	closeAll(): Promise<void>;
}

interface Slot {
	agent: AgentDef;
	key: string;
	sub?: Subagent;
	/** Why every turn of this slot fails without asking (a refused hold, a failed spawn, a close). */
	failure?: Failure;
	/** Turns of one session run one after another: a pi session answers one prompt at a time. */
	queue: Promise<unknown>;
	closing?: Promise<void>;
}

/** What an open pool keeps, shared by the steps below. */
interface Pool {
	readonly options: WorkflowOptions;
	readonly trail: Trail;
	readonly lifetime: Lifetime;
	/** The workflow's spawn, gated by its budget when it has one. */
	readonly spawn: Spawn;
	readonly emit: (event: WorkflowEvent) => void;
	/** Subagents kept by agent and key (`"workflow"` lifetime, and holds). */
	readonly kept: Map<string, Promise<Slot>>;
	/** Turns and holds not yet settled: closing waits for them. */
	readonly inFlight: Set<Promise<unknown>>;
	/** Turns played per key, for the default labels. */
	readonly counts: Map<string, number>;
	closed?: Promise<void>;
	readonly onAbort: () => void;
}

/**
 * Opens a pool. Pass a `trail` when the workflow's clock must start before the pool exists, or when the
 * trail already holds steps (a reduce records its branches first).
 */
export function createPool(options: WorkflowOptions, trail: Trail = createTrail()): SubagentPool {
	const pool: Pool = {
		options,
		trail,
		lifetime: options.lifetime ?? "task",
		// A budget gates every session the pool opens, so each turn is checked as it starts and counted as it ends.
		spawn: options.budget ? budgetedSpawn(options.spawn, options.budget) : options.spawn,
		emit: safeListener(options.onEvent),
		kept: new Map(),
		inFlight: new Set(),
		counts: new Map(),
		// Cancellation closes every session: the turns in flight are cut by the same signal, then all is closed.
		onAbort: () => void closeAll(pool),
	};
	options.signal?.addEventListener("abort", pool.onAbort, { once: true });
	return {
		options,
		trail,
		turn: (agent, task, turnOptions) => turn(pool, agent, task, turnOptions),
		hold: (agent, holdOptions) => hold(pool, agent, holdOptions),
		closeAll: () => closeAll(pool),
	};
}

/** One question, one answer, on a fresh subagent (`"task"`) or the kept one (`"workflow"`). */
function turn(pool: Pool, agent: AgentDef, task: string, turnOptions: TurnOptions = {}): Promise<Result> {
	const key = turnOptions.key ?? agent.name;
	const label = labelFor(pool, key, turnOptions.label);
	const stop = stopped(pool);
	if (stop) return Promise.resolve(refuse(pool, agent, label, stop));
	return track(
		pool,
		pool.lifetime === "workflow" ? turnKept(pool, agent, task, key, label) : turnOnce(pool, agent, task, key, label),
	);
}

async function turnOnce(pool: Pool, agent: AgentDef, task: string, key: string, label: string): Promise<Result> {
	const slot = await openSlot(pool, agent, key);
	try {
		return await play(pool, slot, task, label);
	} finally {
		await closeSlot(pool, slot);
	}
}

async function turnKept(pool: Pool, agent: AgentDef, task: string, key: string, label: string): Promise<Result> {
	const slot = await keptSlot(pool, agent, key);
	return serial(slot, () => play(pool, slot, task, label));
}

/** A subagent held for several turns; a refused hold spawns nothing and refuses each ask on the trail. */
async function hold(pool: Pool, agent: AgentDef, holdOptions: TurnOptions = {}): Promise<Held> {
	const key = holdOptions.key ?? agent.name;
	const stop = stopped(pool);
	const slot: Slot = stop
		? { agent, key, failure: stop, queue: Promise.resolve() }
		: await track(pool, keptSlot(pool, agent, key));
	return {
		id: slot.sub?.id ?? key,
		agent: agent.name,
		ask(task, askOptions = {}) {
			const label = labelFor(pool, key, askOptions.label);
			const now = stopped(pool) ?? (stop ? slot.failure : undefined);
			if (now) return Promise.resolve(refuse(pool, agent, label, now));
			return track(
				pool,
				serial(slot, () => play(pool, slot, task, label)),
			);
		},
		close: () => closeSlot(pool, slot),
	};
}

/** Waits for the turns in flight, then closes every kept subagent. Idempotent. */
function closeAll(pool: Pool): Promise<void> {
	pool.closed ??= (async () => {
		pool.options.signal?.removeEventListener("abort", pool.onAbort);
		while (pool.inFlight.size > 0) await Promise.allSettled([...pool.inFlight]);
		const slots = await Promise.all(pool.kept.values());
		await Promise.all(slots.map((slot) => closeSlot(pool, slot)));
	})();
	return pool.closed;
}

const modelOf = (pool: Pool, agent: AgentDef) => pool.options.model ?? agent.model ?? "";

/** The turn's label: the one asked for, else `<key>#<n>`; under the workflow's path when it has one. */
function labelFor(pool: Pool, key: string, label: string | undefined): string {
	let text = label;
	if (text === undefined) {
		const n = (pool.counts.get(key) ?? 0) + 1;
		pool.counts.set(key, n);
		text = `${key}#${n}`;
	}
	return pool.options.path ? `${pool.options.path}/${text}` : text;
}

/** Why no turn may start now: the signal fired, the pool closed, or the budget is spent. */
function stopped(pool: Pool): Failure | undefined {
	const { signal, budget } = pool.options;
	if (signal?.aborted) return abortFailure(signal);
	if (pool.closed) return { kind: "aborted", message: "aborted: the pool is closed" };
	const spent = budget?.exceeded();
	if (spent) return { kind: "budget", message: spent };
	return undefined;
}

function failedResult(pool: Pool, agent: AgentDef, why: Failure, model = modelOf(pool, agent)): Result {
	return { agent: agent.name, output: "", messages: [], usage: emptyUsage(), model, ok: false, ...flatFailure(why) };
}

/** A turn that never started: said as an event and kept on the trail. */
function refuse(pool: Pool, agent: AgentDef, label: string, why: Failure): Result {
	pool.emit({ type: "refused", agent: agent.name, label, error: why.message, errorKind: why.kind });
	return pool.trail.record(failedResult(pool, agent, why));
}

function track<T>(pool: Pool, work: Promise<T>): Promise<T> {
	pool.inFlight.add(work);
	const done = () => pool.inFlight.delete(work);
	work.then(done, done);
	return work;
}

/** A subagent opened for `agent`; a spawn pi refuses is the slot's failure, not the workflow's crash. */
async function openSlot(pool: Pool, agent: AgentDef, key: string): Promise<Slot> {
	const { options, emit } = pool;
	const slot: Slot = { agent, key, queue: Promise.resolve() };
	const base = { agent: agent.name, key, ...(options.parentId ? { parent: options.parentId } : {}) };
	try {
		slot.sub = await pool.spawn({
			agent,
			...(options.model ? { model: options.model } : {}),
			cwd: options.cwd,
			onToolCall: (tool, args) =>
				emit({ type: "tool_call", agent: agent.name, subagent: slot.sub?.id ?? "", tool, args }),
		});
		emit({ type: "spawn", ...base, subagent: slot.sub.id, model: slot.sub.model });
	} catch (error) {
		// Spawning throws only when pi refuses to create the session (an unknown model, say): that is
		// this turn's failure, not the workflow's crash.
		const message = error instanceof Error ? error.message : String(error);
		slot.failure = { kind: "provider", message };
		emit({ type: "spawn", ...base, model: modelOf(pool, agent), error: message });
	}
	return slot;
}

/** One turn on a slot, announced, its failure said in the signal's words, and kept on the trail. */
async function play(pool: Pool, slot: Slot, task: string, label: string): Promise<Result> {
	const stop = stopped(pool);
	if (stop) return refuse(pool, slot.agent, label, stop);
	const sub = slot.sub;
	if (!sub || slot.failure)
		return pool.trail.record(failedResult(pool, slot.agent, slot.failure ?? { kind: "aborted", message: "aborted" }));
	const who = { agent: slot.agent.name, subagent: sub.id, model: sub.model, label };
	pool.emit({ type: "turn_start", ...who });
	const result = await ask(pool, slot, sub, task, label);
	pool.emit({
		type: "turn_end",
		...who,
		ok: result.ok,
		usage: result.usage,
		...(result.error !== undefined ? { error: result.error } : {}),
		...(result.errorKind ? { errorKind: result.errorKind } : {}),
	});
	return pool.trail.record(result);
}

/** The subagent's answer with the workflow's signal, deadline and watermark; a throw becomes a value. */
async function ask(pool: Pool, slot: Slot, sub: Subagent, task: string, label: string): Promise<Result> {
	const { options, emit } = pool;
	let result: Result;
	try {
		result = await sub.ask(task, {
			label,
			...(options.watermark ? { watermark: options.watermark } : {}),
			onRetry: (r) => emit({ type: "provider_retry", agent: slot.agent.name, subagent: sub.id, label, ...r }),
			...(options.signal ? { signal: options.signal } : {}),
			...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		});
	} catch (error) {
		// The port promises never to throw for a failed turn; one that does still yields a value.
		const message = String((error as Error)?.message ?? error);
		result = failedResult(pool, slot.agent, { kind: "provider", message }, sub.model);
	}
	// The subagent only knows its signal fired; the reason says whether that was a deadline, a stop or
	// a sibling's failure.
	if (!result.ok && result.errorKind === "aborted" && options.signal?.aborted) {
		result = { ...result, ...flatFailure(abortFailure(options.signal)) };
	}
	return result;
}

/** Closes a slot after its queued turns; later turns on it fail `aborted`. Idempotent; a failed close is an event. */
function closeSlot(pool: Pool, slot: Slot): Promise<void> {
	slot.closing ??= (async () => {
		await slot.queue;
		slot.failure ??= { kind: "aborted", message: "aborted: the subagent was closed" };
		const sub = slot.sub;
		if (!sub) return;
		try {
			await sub.close();
			pool.emit({ type: "close", agent: slot.agent.name, subagent: sub.id });
		} catch (error) {
			pool.emit({
				type: "close",
				agent: slot.agent.name,
				subagent: sub.id,
				error: String((error as Error)?.message ?? error),
			});
		}
	})();
	return slot.closing;
}

function serial<T>(slot: Slot, fn: () => Promise<T>): Promise<T> {
	const run = slot.queue.then(fn, fn);
	const settle = () => {};
	slot.queue = run.then(settle, settle);
	return run;
}

/** The kept subagent of `agent` under `key`, opened on first use. */
function keptSlot(pool: Pool, agent: AgentDef, key: string): Promise<Slot> {
	const id = `${agent.name}\u0000${key}`;
	let slot = pool.kept.get(id);
	if (!slot) {
		slot = openSlot(pool, agent, key);
		pool.kept.set(id, slot);
	}
	return slot;
}
