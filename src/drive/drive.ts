/**
 * The unattended chain driver (`pi-flows drive TASK.md`): one session-sized task per turn, each turn a
 * fresh context that must end on `finish`; its handoff document (HANDOFF.md, written atomically, every
 * earlier one kept) seeds the next turn. A turn that ends without a handoff gets a recovery turn in the
 * same session; a turn that crashes is recovered in a fresh one, not fatal; `blocked` stops for a person;
 * `MAX_TURNS` bounds the chain.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentDef } from "../agents/index.ts";
import { checkpointTool, continuationPrompt, finishTool, type HandoffCapture } from "../flow/run/handoff-tools.ts";
import { type HandoffDocument, handoffAsContext, isChainEnd, renderHandoff, writeHandoff } from "../handoff/index.ts";
import type { Spawn } from "../runtime/subagent.ts";
import { addUsage, emptyUsage, type Usage } from "../runtime/usage.ts";

/** How a chain ended; each has its own exit code in the CLI. */
export type DriveEnd = "complete" | "blocked" | "max-turns" | "no-handoff" | "stopped";

/** One turn of the chain, as its log keeps it. */
export interface DriveTurn {
	n: number;
	kickoff: string;
	/** How the turn went: a handoff, a recovery that produced one, or nothing. */
	outcome: "handoff" | "recovered" | "crashed" | "no-handoff";
	doc?: HandoffDocument;
	error?: string;
	usage: Usage;
}

/** Options of a drive. */
export interface DriveOptions {
	cwd: string;
	spawn: Spawn;
	/** The agent each turn runs (the shipped `worker` by default). */
	agent: AgentDef;
	model?: string;
	/** `MAX_TURNS`, default 10. */
	maxTurns?: number;
	/** Where each turn's log and handoff are kept. */
	logDir: string;
	timeoutMs?: number;
	signal?: AbortSignal;
	onTurn?: (turn: DriveTurn) => void;
}

const FINISH_RULE = "Work on this one task only. Save progress with `checkpoint` at milestones, and end with `finish` as your final action: status done when the task is complete, partial with a self-contained next_task when something is left, blocked when a person must act.";
const RECOVERY = "You stopped without writing the handoff. Do not start new work: call `finish` now with the status of the task, a summary of what was done, the artifacts, and a self-contained next_task for what is left.";

/** Drives the chain from `task` until it completes, blocks, or runs out of turns. */
export async function drive(task: string, options: DriveOptions): Promise<{ end: DriveEnd; turns: DriveTurn[]; usage: Usage }> {
	mkdirSync(options.logDir, { recursive: true });
	const maxTurns = options.maxTurns ?? 10;
	const turns: DriveTurn[] = [];
	let kickoff = `${task.trim()}\n\n${FINISH_RULE}`;
	let usage = emptyUsage();
	for (let n = 1; ; n++) {
		if (options.signal?.aborted) return { end: "stopped", turns, usage };
		if (n > maxTurns) return { end: "max-turns", turns, usage };
		const turn = await oneTurn(n, kickoff, options);
		usage = addUsage(usage, turn.usage);
		turns.push(turn);
		writeFileSync(join(options.logDir, `turn-${n}.json`), `${JSON.stringify(turn, null, 2)}\n`);
		if (turn.doc) {
			writeFileSync(join(options.logDir, `turn-${n}.handoff.md`), renderHandoff(turn.doc));
			const written = await writeHandoff(options.cwd, turn.doc);
			if (!written.ok) turn.error = written.message;
		}
		options.onTurn?.(turn);
		if (options.signal?.aborted) return { end: "stopped", turns, usage };
		if (turn.outcome === "crashed") continue;
		if (!turn.doc) return { end: "no-handoff", turns, usage };
		if (turn.doc.status === "blocked") return { end: "blocked", turns, usage };
		if (turn.doc.status === "done" && isChainEnd(turn.doc)) return { end: "complete", turns, usage };
		kickoff = turn.doc.by === "checkpoint" ? continuationPrompt(kickoff, turn.doc) : `${handoffAsContext(turn.doc, "next")}\n\n${turn.doc.next_task ?? "Finish what the document says is left."}\n\n${FINISH_RULE}`;
	}
}

async function oneTurn(n: number, kickoff: string, options: DriveOptions): Promise<DriveTurn> {
	const capture: HandoffCapture = {};
	let sub: Awaited<ReturnType<Spawn>> | undefined;
	let usage = emptyUsage();
	try {
		sub = await options.spawn({
			agent: options.agent,
			...(options.model ? { model: options.model } : {}),
			cwd: options.cwd,
			customTools: [finishTool(capture), checkpointTool(capture, "session")],
		});
		const ask = (text: string, label: string) =>
			(sub as NonNullable<typeof sub>).ask(text, { label, ...(options.signal ? { signal: options.signal } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
		const first = await ask(kickoff, `turn${n}`);
		usage = addUsage(usage, first.usage);
		if (!first.ok) return { n, kickoff, outcome: "crashed", error: first.error ?? "failed", usage };
		if (capture.doc) return { n, kickoff, outcome: "handoff", doc: capture.doc, usage };
		// The turn ended without a handoff: the same session, which still holds the work, writes it now.
		const recovery = await ask(RECOVERY, `turn${n}/recover`);
		usage = addUsage(usage, recovery.usage);
		if (capture.doc) return { n, kickoff, outcome: "recovered", doc: capture.doc, usage };
		return { n, kickoff, outcome: "no-handoff", ...(recovery.ok ? {} : { error: recovery.error ?? "failed" }), usage };
	} catch (error) {
		return { n, kickoff, outcome: "crashed", error: (error as Error).message ?? String(error), usage };
	} finally {
		await sub?.close();
	}
}
