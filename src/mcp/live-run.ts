/**
 * A run the MCP server started and still holds: launched through the same preparation and run folder as
 * `pi-flows run` (`prepareLaunch`, then `startRun`), stopped the way Ctrl-C stops one (its signal: turns
 * land their handoff, the journal says stopped, the run stays resumable), and followed by whichever tool
 * calls attach to it. A question the run asks goes to an attached call whose client can answer a form;
 * with none attached within the grace period, the flow's unattended rules apply, and the answer says why.
 *
 *   launchRun(flow, input, settings, { attended: true })  →  { ok: true, run }   (the folder made, locked)
 *   run.attach({ canElicit: true, onQuestion, onEvent })  →  detach()
 */
import { basename } from "node:path";
import type { Fault } from "../faults/index.ts";
import { type AskAnswer, type AskCard, type AskPort, createBashCheck, createGitPort } from "../engine/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { type LaunchStage, prepareLaunch } from "../launch/index.ts";
import { openHost } from "../pi/index.ts";
import { type RunOutcome, runsHome, startRun } from "../runs/index.ts";
import type { FlowEvent } from "../runtime/index.ts";
import type { McpSettings } from "./settings.ts";

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

/** A tool call following the run. */
export interface Attachment {
	/** Whether this call's client answers forms (elicitation); only such a call is handed questions. */
	canElicit: boolean;
	/** A question for this call to put to its client; the call then returns and the run keeps waiting. */
	onQuestion(question: Question): void;
	onEvent(event: FlowEvent): void;
}

/** A run under way (or just ended) in this server. */
export interface LiveRun {
	/** The run folder's name, the handle every `run_*` tool takes. */
	id: string;
	runDir: string;
	flow: string;
	startedAt: number;
	/** Visits started and ended so far: the progress a call reports. */
	progress(): { started: number; ended: number; last?: string };
	asks: AskNote[];
	/** The question the run waits on, if any. */
	pending(): Question | undefined;
	/** Settles when the run's life ends, however it ends. */
	done: Promise<RunOutcome>;
	outcome(): RunOutcome | undefined;
	/** Whether a stop was asked (a cancelled call, `run_stop`, the server closing). */
	stopping(): boolean;
	attach(a: Attachment): () => void;
	/** Answers a pending question; false when it is not (or no longer) pending. */
	answer(id: string, answer: AskAnswer): boolean;
	stop(): void;
}

/** A launch the preparation refused: its faults and lines, as the CLI would print them. */
export interface LaunchRefusal {
	ok: false;
	stage: LaunchStage | "input" | "run";
	faults: Fault[];
	lines: string[];
}

/** How long a question waits for a call that can answer it before the unattended rules apply. */
export const QUESTION_GRACE_MS = 30_000;
/** How long a question handed to a client's form waits for the reply before the unattended rules apply. */
export const QUESTION_HOLD_MS = 30 * 60_000;

/** Starts `flow` on `input`; resolves once its folder exists (or the launch was refused). */
export async function launchRun(
	flow: CheckedFlow,
	input: Value,
	settings: McpSettings,
	options: { attended: boolean },
): Promise<{ ok: true; run: LiveRun } | LaunchRefusal> {
	const { cwd, agentDir, flags } = settings;
	const git = createGitPort();
	const prepared = await prepareLaunch(flow, {
		cwd,
		openHost: (script, transport) =>
			openHost({
				cwd,
				agentDir,
				projectTrusted: settings.project,
				...(script ? { script } : {}),
				...(transport ? { transport } : {}),
			}),
		...(flags.model ? { model: flags.model } : {}),
		...(flags.script ? { script: flags.script } : {}),
		...(flags.budget ? { budget: flags.budget } : {}),
		...(flags.transport ? { transport: flags.transport } : {}),
		git,
		somebodyThere: options.attended,
	});
	if (!prepared.ok)
		return {
			ok: false,
			stage: prepared.stage,
			faults: prepared.faults,
			lines: prepared.unreadable ? [`cannot read the script ${prepared.unreadable}`] : prepared.lines,
		};
	const handoff = await resolveHandoffPolicy({ cwd, agentDir, env: settings.env });
	const state = runState(settings.graceMs ?? QUESTION_GRACE_MS, options.attended);
	let named: (dir: string) => void = () => {};
	const folder = new Promise<string>((resolve) => {
		named = resolve;
	});
	const done = startRun(flow, input, {
		...prepared.runOptions,
		runsHome: runsHome(cwd, settings.runsDir),
		handoff: handoff.policy,
		keyDir: agentDir,
		spawn: prepared.host.spawn,
		cwd,
		signal: state.controller.signal,
		ask: state.port,
		git,
		check: createBashCheck(),
		// The snapshot records whether a person could answer when the run began, as the CLI's does.
		somebodyThere: options.attended,
		...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
		...(flags.idleMs !== undefined ? { idleTimeoutMs: flags.idleMs } : {}),
		onEvent: state.onEvent,
		onRunDir: named,
	});
	const first = await Promise.race([folder, done]);
	if (typeof first !== "string") {
		const why = "refused" in first ? first.refused : "the run ended before its folder was made";
		return { ok: false, stage: "run", faults: [], lines: [why] };
	}
	const ended = done.then((outcome) => {
		if ("refused" in outcome) throw new Error(`the run was refused after it started: ${outcome.refused}`);
		state.end(outcome);
		return outcome;
	});
	// A run's end is read through `outcome()`; an unexpected rejection must not go unhandled meanwhile.
	ended.catch(() => {});
	for (const w of handoff.warnings) settings.note(w);
	return {
		ok: true,
		run: {
			id: basename(first),
			runDir: first,
			flow: flow.name.value,
			startedAt: Date.now(),
			progress: state.progress,
			asks: state.asks,
			pending: state.pending,
			done: ended,
			outcome: state.outcome,
			stopping: () => state.controller.signal.aborted,
			attach: state.attach,
			answer: state.answer,
			stop: () => state.controller.abort(),
		},
	};
}

/** The mutable half of a live run: its stop, its event fan-out and its questions. */
function runState(graceMs: number, attended: boolean) {
	const controller = new AbortController();
	const attached = new Set<Attachment>();
	const asks: AskNote[] = [];
	const counts: { started: number; ended: number; last?: string } = { started: 0, ended: 0 };
	let waiting: (Question & { settle(a: AskAnswer): void; handed: boolean; timer?: NodeJS.Timeout }) | undefined;
	let ended: RunOutcome | undefined;
	let next = 0;

	/** Hands the pending question to an attached call that can answer it; else starts the grace wait. */
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
				signal?.addEventListener("abort", () => settle({ kind: "stopped" }), { once: true });
				if (signal?.aborted) settle({ kind: "stopped" });
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
		end(outcome: RunOutcome) {
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
