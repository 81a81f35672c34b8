/**
 * Where a workflow's turns are played. A combinator only says who speaks, in what order, and what is done
 * with the answer; the pool spawns, applies the workflow's signal, deadline and model, keeps or closes
 * subagents by lifetime, records every turn on the trail and closes everything it opened.
 *
 *   const pool = createPool({ cwd, spawn, lifetime: "workflow" });
 *   try { await pool.turn(coder, "write it"); await pool.turn(coder, "again, better"); }
 *   finally { await pool.closeAll(); }
 */
import type { AgentDef } from "../agents/agent.ts";
import { abortFailure } from "./abort.ts";
import { budgetedSpawn } from "./budget.ts";
import type { Failure } from "./failure.ts";
import { flatFailure, type Result } from "./result.ts";
import type { Subagent } from "./subagent.ts";
import { createTrail, type Trail } from "./trail.ts";
import { emptyUsage } from "./usage.ts";
import { safeListener } from "./workflow-events.ts";
import type { WorkflowOptions } from "./workflow-options.ts";

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

/**
 * Opens a pool. Pass a `trail` when the workflow's clock must start before the pool exists, or when the
 * trail already holds steps (a reduce records its branches first).
 */
export function createPool(options: WorkflowOptions, trail: Trail = createTrail()): SubagentPool {
	const lifetime = options.lifetime ?? "task";
	// A budget gates every session the pool opens, so each turn is checked as it starts and counted as it ends.
	const spawn = options.budget ? budgetedSpawn(options.spawn, options.budget) : options.spawn;
	const emit = safeListener(options.onEvent);
	const kept = new Map<string, Promise<Slot>>();
	const inFlight = new Set<Promise<unknown>>();
	const counts = new Map<string, number>();
	let closed: Promise<void> | undefined;
	// Cancellation closes every session: the turns in flight are cut by the same signal, then all is closed.
	const onAbort = () => void closeAll();
	options.signal?.addEventListener("abort", onAbort, { once: true });

	const modelOf = (agent: AgentDef) => options.model ?? agent.model ?? "";
	const labelFor = (key: string, label: string | undefined) => {
		let text = label;
		if (text === undefined) {
			const n = (counts.get(key) ?? 0) + 1;
			counts.set(key, n);
			text = `${key}#${n}`;
		}
		return options.path ? `${options.path}/${text}` : text;
	};
	const stopped = (): Failure | undefined => {
		if (options.signal?.aborted) return abortFailure(options.signal);
		if (closed) return { kind: "aborted", message: "aborted: the pool is closed" };
		const spent = options.budget?.exceeded();
		if (spent) return { kind: "budget", message: spent };
		return undefined;
	};
	const failed = (agent: AgentDef, why: Failure, model = modelOf(agent)): Result => {
		return { agent: agent.name, output: "", messages: [], usage: emptyUsage(), model, ok: false, ...flatFailure(why) };
	};
	const refuse = (agent: AgentDef, label: string, why: Failure): Result => {
		emit({ type: "refused", agent: agent.name, label, error: why.message, errorKind: why.kind });
		return trail.record(failed(agent, why));
	};
	const track = <T>(work: Promise<T>): Promise<T> => {
		inFlight.add(work);
		const done = () => inFlight.delete(work);
		work.then(done, done);
		return work;
	};

	async function open(agent: AgentDef, key: string): Promise<Slot> {
		const slot: Slot = { agent, key, queue: Promise.resolve() };
		const base = { agent: agent.name, key, ...(options.parentId ? { parent: options.parentId } : {}) };
		try {
			slot.sub = await spawn({
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
			emit({ type: "spawn", ...base, model: modelOf(agent), error: message });
		}
		return slot;
	}

	async function play(slot: Slot, task: string, label: string): Promise<Result> {
		const stop = stopped();
		if (stop) return refuse(slot.agent, label, stop);
		const sub = slot.sub;
		if (!sub || slot.failure)
			return trail.record(failed(slot.agent, slot.failure ?? { kind: "aborted", message: "aborted" }));
		const who = { agent: slot.agent.name, subagent: sub.id, model: sub.model, label };
		emit({ type: "turn_start", ...who });
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
			result = failed(slot.agent, { kind: "provider", message: String((error as Error)?.message ?? error) }, sub.model);
		}
		// The subagent only knows its signal fired; the reason says whether that was a deadline, a stop or
		// a sibling's failure.
		if (!result.ok && result.errorKind === "aborted" && options.signal?.aborted) {
			result = { ...result, ...flatFailure(abortFailure(options.signal)) };
		}
		emit({
			type: "turn_end",
			...who,
			ok: result.ok,
			usage: result.usage,
			...(result.error !== undefined ? { error: result.error } : {}),
			...(result.errorKind ? { errorKind: result.errorKind } : {}),
		});
		return trail.record(result);
	}

	function closeSlot(slot: Slot): Promise<void> {
		slot.closing ??= (async () => {
			await slot.queue;
			slot.failure ??= { kind: "aborted", message: "aborted: the subagent was closed" };
			const sub = slot.sub;
			if (!sub) return;
			try {
				await sub.close();
				emit({ type: "close", agent: slot.agent.name, subagent: sub.id });
			} catch (error) {
				emit({
					type: "close",
					agent: slot.agent.name,
					subagent: sub.id,
					error: String((error as Error)?.message ?? error),
				});
			}
		})();
		return slot.closing;
	}

	const serial = <T>(slot: Slot, fn: () => Promise<T>): Promise<T> => {
		const run = slot.queue.then(fn, fn);
		const settle = () => {};
		slot.queue = run.then(settle, settle);
		return run;
	};
	const keptSlot = (agent: AgentDef, key: string): Promise<Slot> => {
		const id = `${agent.name}\u0000${key}`;
		let slot = kept.get(id);
		if (!slot) {
			slot = open(agent, key);
			kept.set(id, slot);
		}
		return slot;
	};

	async function turnOnce(agent: AgentDef, task: string, key: string, label: string): Promise<Result> {
		const slot = await open(agent, key);
		try {
			return await play(slot, task, label);
		} finally {
			await closeSlot(slot);
		}
	}

	async function turnKept(agent: AgentDef, task: string, key: string, label: string): Promise<Result> {
		const slot = await keptSlot(agent, key);
		return serial(slot, () => play(slot, task, label));
	}

	function turn(agent: AgentDef, task: string, turnOptions: TurnOptions = {}): Promise<Result> {
		const key = turnOptions.key ?? agent.name;
		const label = labelFor(key, turnOptions.label);
		const stop = stopped();
		if (stop) return Promise.resolve(refuse(agent, label, stop));
		return track(lifetime === "workflow" ? turnKept(agent, task, key, label) : turnOnce(agent, task, key, label));
	}

	async function hold(agent: AgentDef, holdOptions: TurnOptions = {}): Promise<Held> {
		const key = holdOptions.key ?? agent.name;
		const stop = stopped();
		// A refused hold spawns nothing; its asks are refused one by one, so each is still on the trail.
		const slot: Slot = stop
			? { agent, key, failure: stop, queue: Promise.resolve() }
			: await track(keptSlot(agent, key));
		return {
			id: slot.sub?.id ?? key,
			agent: agent.name,
			ask(task, askOptions = {}) {
				const label = labelFor(key, askOptions.label);
				const now = stopped() ?? (stop ? slot.failure : undefined);
				if (now) return Promise.resolve(refuse(agent, label, now));
				return track(serial(slot, () => play(slot, task, label)));
			},
			close: () => closeSlot(slot),
		};
	}

	function closeAll(): Promise<void> {
		closed ??= (async () => {
			options.signal?.removeEventListener("abort", onAbort);
			while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
			const slots = await Promise.all(kept.values());
			await Promise.all(slots.map(closeSlot));
		})();
		return closed;
	}

	return { options, trail, turn, hold, closeAll };
}
