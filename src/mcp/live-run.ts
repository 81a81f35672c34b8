/**
 * A run the MCP server follows: one it started or resumed (in this process on the run-folder backend, on
 * the DBOS backend's workers), stopped the way Ctrl-C stops one (turns land their handoff, the journal
 * says stopped, the run stays resumable), and followed by whichever tool calls and tasks attach to it. A
 * question the run asks goes to an attached follower whose client can answer a form; with none attached
 * within the grace period, the flow's unattended rules apply, and the answer says why.
 *
 *   const state = liveState(graceMs, attended)       // the run's ask port, event fan-out and stop
 *   state.attach({ canElicit: true, onQuestion, onEvent })  →  detach()
 */
import type { AskAnswer, AskCard, AskPort, FlowResult } from "../engine/index.ts";
import type { UsageFile } from "../runs/index.ts";
import type { FlowEvent } from "../runtime/index.ts";

/** A question the run waits on. */
export interface Question {
	id: string;
	card: AskCard;
}

/** What the run said about one of its questions, for the tool result (the journal keeps the same `via`). */
export interface AskNote {
	visit: string;
	question: string;
	/** `elicitation`, or why the unattended rules applied: `declined`, `no-elicitation`, `unattached`. */
	via: string;
	answer?: string | boolean;
}

/** A tool call or a task following the run. */
export interface Attachment {
	/** Whether this follower's client answers forms (elicitation); only such a follower is handed questions. */
	canElicit: boolean;
	/** A question for this follower to put to its client; the run keeps waiting for the answer. */
	onQuestion(question: Question): void;
	onEvent(event: FlowEvent): void;
}

/** How a life of a run ended: its result and its usage, as the journal has them. */
export interface Ended {
	result: FlowResult;
	usage: UsageFile;
}

/** Where a run lives: the run folder of this machine, or the DBOS backend's database. */
export type Backend = "folder" | "dbos";

/** A run under way (or just ended) that this server follows. */
export interface LiveRun {
	/** The handle every `run_*` tool takes: the run folder's name, or the run's id in the database. */
	id: string;
	backend: Backend;
	/** The run folder (the folder backend only). */
	runDir?: string;
	flow: string;
	startedAt: number;
	/** Visits started and ended so far: the progress a call reports. */
	progress(): { started: number; ended: number; last?: string };
	/** Tokens, cost and turns so far, when the backend can say without waiting. */
	usage(): { tokens: number; cost: number; turns: number; ms: number } | undefined;
	asks: AskNote[];
	/** The question the run waits on, if any. */
	pending(): Question | undefined;
	/** Settles when this life of the run ends, however it ends; rejects when it was no longer followed. */
	done: Promise<Ended>;
	outcome(): Ended | undefined;
	/** Whether a stop was asked (a cancelled call or task, `run_stop`, the server closing). */
	stopping(): boolean;
	attach(a: Attachment): () => void;
	/** Answers a pending question; false when it is not (or no longer) pending. */
	answer(id: string, answer: AskAnswer): boolean;
	/** Stops the run as Ctrl-C does; it stays resumable. */
	stop(): void;
	/**
	 * The server is closing: a run of this process is stopped and waited for (it lands its handoff); a run
	 * on the DBOS backend's workers goes on, only no longer followed from here.
	 */
	release(): Promise<void>;
}

/** How long a question waits for a call that can answer it before the unattended rules apply. */
export const QUESTION_GRACE_MS = 30_000;
/** How long a question handed to a client's form waits for the reply before the unattended rules apply. */
export const QUESTION_HOLD_MS = 30 * 60_000;

/** The mutable half of a live run, whatever its backend: its stop, its event fan-out and its questions. */
export type LiveState = ReturnType<typeof liveState>;

/**
 * A run's stop, event fan-out and ask port. `attended`: whether the run began with a client that answers
 * forms; without one every question takes the unattended rules at once (`via: no-elicitation`).
 */
export function liveState(graceMs: number, attended: boolean) {
	const controller = new AbortController();
	const attached = new Set<Attachment>();
	const asks: AskNote[] = [];
	const counts: { started: number; ended: number; last?: string } = { started: 0, ended: 0 };
	let waiting: (Question & { settle(a: AskAnswer): void; handed: boolean; timer?: NodeJS.Timeout }) | undefined;
	let ended: Ended | undefined;
	let next = 0;

	/** Hands the pending question to an attached follower that can answer it; else starts the grace wait. */
	const offer = () => {
		const q = waiting;
		if (!q || q.handed) return;
		const taker = [...attached].find((a) => a.canElicit);
		clearTimeout(q.timer);
		if (!taker) {
			q.timer = setTimeout(() => q.settle({ kind: "nobody", via: "unattached" }), graceMs);
			return;
		}
		q.handed = true;
		q.timer = setTimeout(() => q.settle({ kind: "nobody", via: "unattached" }), QUESTION_HOLD_MS);
		taker.onQuestion({ id: q.id, card: q.card });
	};

	const port: AskPort = {
		// Always asked: the port itself says how the unattended rules came to apply, for the journal.
		somebodyThere: true,
		ask(card, signal) {
			return new Promise<AskAnswer>((resolve) => {
				const id = `q${++next}`;
				const timers: NodeJS.Timeout[] = [];
				const settle = (a: AskAnswer) => {
					if (waiting?.id !== id) return;
					clearTimeout(waiting.timer);
					for (const t of timers) clearTimeout(t);
					waiting = undefined;
					const via = "via" in a ? a.via : undefined;
					asks.push({
						visit: card.visit,
						question: card.question,
						via: via ?? a.kind,
						...(a.kind === "answer" ? { answer: a.value } : {}),
					});
					resolve(a);
				};
				waiting = { id, card, settle, handed: false };
				if (card.timeoutMs !== undefined) timers.push(setTimeout(() => settle({ kind: "timeout" }), card.timeoutMs));
				const stopped = AbortSignal.any([controller.signal, ...(signal ? [signal] : [])]);
				stopped.addEventListener("abort", () => settle({ kind: "stopped" }), { once: true });
				if (stopped.aborted) settle({ kind: "stopped" });
				else if (!attended) settle(noElicitation());
				else offer();
			});
		},
	};

	return {
		controller,
		port,
		asks,
		progress: () => ({ ...counts }),
		pending: (): Question | undefined => (waiting ? { id: waiting.id, card: waiting.card } : undefined),
		outcome: () => ended,
		end(outcome: Ended) {
			ended = outcome;
		},
		onEvent(event: FlowEvent) {
			if (event.type === "node_start") {
				counts.started++;
				counts.last = event.path;
			} else if (event.type === "node_end") counts.ended++;
			for (const a of attached) a.onEvent(event);
		},
		attach(a: Attachment): () => void {
			attached.add(a);
			offer();
			return () => {
				attached.delete(a);
			};
		},
		answer(id: string, answer: AskAnswer): boolean {
			if (waiting?.id !== id) return false;
			waiting.settle(answer);
			return true;
		},
	};
}

/** A client that has no form to show: the unattended rules apply at once, and the journal says why. */
export function noElicitation(): AskAnswer {
	return { kind: "nobody", via: "no-elicitation" };
}
