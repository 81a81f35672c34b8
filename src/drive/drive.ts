/**
 * The unattended chain driver (`pi-flows drive TASK.md`): one session-sized task per turn, each turn a
 * fresh context that must end on `finish`. Every document a turn writes (`finish`, `checkpoint`) is on
 * disk as HANDOFF.md, and in the drive's journal, before the tool returns; the next turn is seeded with
 * the task it was handed and the latest document, nothing older. A turn that ends without a handoff gets
 * a recovery turn in the same session; a turn that crashes is recovered in a fresh one; `blocked` stops
 * for a person; `MAX_TURNS` bounds one life. Every turn has the watermark, muted once it has handed off.
 *
 * Killed at any instant and started again, the driver reads its journal (and HANDOFF.md, for a document
 * saved in the instant before the kill) and picks up where the chain stood: a turn whose handoff was
 * recorded is never run again; a turn cut off before it recorded one is run again from the same kickoff.
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { type AgentDef, projectRoot } from "../agents/index.ts";
import { isLink, safeMkdir, safeWrite } from "../fs-safe/index.ts";
import { redactedJson, redactText } from "../secrets/index.ts";
import { untrustedRecord } from "../trust/index.ts";
import { checkpointTool, continuationPrompt, finishTool, handedOff, type HandoffCapture } from "../engine/index.ts";
import {
	DEFAULT_POLICY,
	type HandoffDocument,
	type HandoffPolicy,
	handoffAsContext,
	isChainEnd,
	landThePlaneDirective,
	readHandoff,
	renderHandoff,
	writeHandoff,
} from "../handoff/index.ts";
import { acquireLock, runKey, SEAL_FILE } from "../runs/index.ts";
import type { Spawn } from "../runtime/index.ts";
import { addUsage, emptyUsage, type Usage } from "../runtime/index.ts";
import {
	type DriveEnd,
	type DriveEntry,
	type DriveJournal,
	DRIVE_SEAL,
	openDriveJournal,
	readPointer,
	readSealedDriveJournal,
	startDriveRecord,
	type TurnOutcome,
	taskSha,
	writePointer,
} from "./journal.ts";

export type { DriveEnd, TurnOutcome } from "./journal.ts";

/** One turn of the chain, as its log keeps it. */
export interface DriveTurn {
	n: number;
	kickoff: string;
	/** How the turn went: a handoff, a recovery that produced one, a crash, nothing, or a stop by the caller. */
	outcome: TurnOutcome;
	/** The last document the turn saved (a `checkpoint` kept even when the turn then crashed). */
	doc?: HandoffDocument;
	error?: string;
	usage: Usage;
}

/** Where a restarted drive picked up, so it can say so. */
export interface DriveResume {
	logDir: string;
	/** Turns recorded by earlier lives. */
	recorded: number;
	/** The turn this life starts with. */
	n: number;
	/** What it starts from: the task itself, the journal's latest document, or a HANDOFF.md saved just before the kill. */
	from: "task" | "journal" | "HANDOFF.md";
	/** The document the turn is seeded with. */
	doc?: HandoffDocument;
	/** Set when turn `n` was cut off before it recorded a handoff, so it runs again. */
	redo?: boolean;
	/** How the previous life ended when it ended on its own (blocked, max-turns, ...). */
	previousEnd?: DriveEnd;
}

/** What a drive returns. */
export interface DriveResult {
	end: DriveEnd;
	/** The turns of this life. */
	turns: DriveTurn[];
	/** This life's usage. */
	usage: Usage;
	logDir: string;
	resumed?: DriveResume;
	/** The task's drive had already completed; nothing was run. */
	alreadyComplete?: boolean;
	/** Why the drive was refused (end `refused`). */
	message?: string;
}

/** Options of a drive. */
export interface DriveOptions {
	cwd: string;
	spawn: Spawn;
	/** The agent each turn runs (the shipped `worker` by default). */
	agent: AgentDef;
	model?: string;
	/** `MAX_TURNS` of one life, default 10. */
	maxTurns?: number;
	/** Where a new drive keeps its journal, turn logs and documents; a resumed one keeps its own. */
	logDir?: string;
	timeoutMs?: number;
	signal?: AbortSignal;
	/** The switch, the reset cap, the watermark (see `resolveHandoffPolicy`); default: on, defaults. */
	handoff?: HandoffPolicy;
	/** Start the task over even when an unfinished (or finished) drive of it is recorded. */
	fresh?: boolean;
	onTurn?: (turn: DriveTurn) => void;
	/** Called once, before the first turn, when this drive continues an earlier one. */
	onResume?: (resume: DriveResume) => void;
	/** Hears what the drive did not read, and why (a record in `.pi/drive` it did not make here). */
	onNote?: (note: string) => void;
	/** The pi agent folder holding the person's run key, which seals the records. Default: pi's agent folder. */
	keyDir?: string;
}

/** The file every turn's document is written to, and named as the seed's source. */
const HANDOFF_FILE = "HANDOFF.md";
const FINISH_RULE = [
	"Work on this one task only. Save progress with `checkpoint` at milestones, and end with `finish` as your",
	"final action: status done when the task is complete, partial with a self-contained next_task when",
	"something is left, blocked when a person must act.",
].join(" ");
const RECOVERY = [
	"You stopped without writing the handoff. Do not start new work: call `finish` now with the status of the",
	"task, a summary of what was done, the artifacts, and a self-contained next_task for what is left.",
].join(" ");

/** Where the relay of sessions stands between turns; everything the next kickoff is built from. */
interface RelayState {
	/** The number of the next turn. */
	n: number;
	/** The task being worked on: the chain's own, then each handoff's next_task. */
	task: string;
	/** The latest document, which seeds the next turn. */
	doc?: HandoffDocument;
	/** Checkpoint resets since the last `finish` (the `HANDOFF_MAX_RESETS` cap counts these). */
	resets: number;
}

/** The next turn's first prompt: the task and the latest document, never an earlier kickoff. */
function kickoffOf(state: RelayState): string {
	const { doc, task } = state;
	if (!doc) return `${task.trim()}\n\n${FINISH_RULE}`;
	if (doc.by === "checkpoint") return `${continuationPrompt(task, doc, HANDOFF_FILE)}\n${FINISH_RULE}`;
	const blocked =
		doc.status === "blocked"
			? `The previous turn stopped as blocked (${doc.blocked ?? doc.summary}) and a person was asked to act. ` +
				"Check that it is resolved before going on; if it is not, call `finish` with status blocked again.\n\n"
			: "";
	return `${handoffAsContext(doc, "next", HANDOFF_FILE)}\n\n${blocked}${task.trim()}\n\n${FINISH_RULE}`;
}

/** What a finished turn does to the chain: the next state, and the end when the chain stops here. */
function advance(state: RelayState, turn: Pick<DriveTurn, "outcome" | "doc">): { state: RelayState; end?: DriveEnd } {
	const { doc } = turn;
	const next = (patch: Partial<RelayState>): RelayState => ({ ...state, ...patch, n: state.n + 1 });
	switch (turn.outcome) {
		case "stopped":
			return { state: next(doc ? { doc } : {}), end: "stopped" };
		case "crashed":
			// The same task again, in a fresh session, from the latest document if the turn saved one.
			return { state: next(doc ? { doc } : {}) };
		case "no-handoff":
			return { state: next(doc ? { doc } : {}), end: "no-handoff" };
		default: {
			if (!doc) return { state: next({}), end: "no-handoff" };
			if (doc.by === "checkpoint") return { state: next({ doc, resets: state.resets + 1 }) };
			const left = doc.status === "blocked" ? state.task : "Finish what the document says is left.";
			const task = doc.next_task?.trim() || left;
			if (doc.status === "blocked") return { state: next({ task, doc, resets: 0 }), end: "blocked" };
			if (doc.status === "done" && isChainEnd(doc)) return { state: next({ task, doc, resets: 0 }), end: "complete" };
			return { state: next({ task, doc, resets: 0 }) };
		}
	}
}

const sameDoc = (a: HandoffDocument, b: HandoffDocument) => renderHandoff(a) === renderHandoff(b);

/**
 * Rebuilds the chain from an earlier life's journal. A turn left open by a kill is closed here: with the
 * last document it saved (from the journal, or from HANDOFF.md when the kill fell between the file and the
 * journal line) it counts as handed off; with none it runs again under its own number.
 */
function replay(entries: readonly DriveEntry[], task: string, onDisk: HandoffDocument | undefined) {
	let state: RelayState = { n: 1, task, resets: 0 };
	let open: Extract<DriveEntry, { type: "turn_start" }> | undefined;
	let docs: HandoffDocument[] = [];
	let recorded = 0;
	let previousEnd: DriveEnd | undefined;
	for (const e of entries) {
		if (e.type === "turn_start") {
			open = e;
			docs = [];
			previousEnd = undefined;
		} else if (e.type === "handoff" && open?.n === e.n) docs.push(e.doc);
		else if (e.type === "turn_end") {
			const r = advance({ ...state, n: e.n, task: open?.n === e.n ? open.task : state.task }, e);
			state = r.state;
			previousEnd = r.end;
			open = undefined;
			recorded++;
		} else if (e.type === "drive_end") previousEnd = e.end;
	}
	if (!open) return { state, recorded, previousEnd, from: state.doc ? ("journal" as const) : ("task" as const) };
	let doc = docs.at(-1);
	let from: DriveResume["from"] = "journal";
	// The tools write HANDOFF.md first and the journal second: a newer file than the journal knows was the
	// turn's last save.
	if (onDisk && onDisk.writtenAt !== open.before && !docs.some((d) => sameDoc(d, onDisk))) {
		doc = onDisk;
		from = "HANDOFF.md";
	}
	const base = { ...state, n: open.n, task: open.task };
	if (!doc) return { state: base, recorded, from: base.doc ? ("journal" as const) : ("task" as const), redo: true };
	const closed = { n: open.n, outcome: (doc.by === "finish" ? "handoff" : "crashed") as TurnOutcome, doc };
	const r = advance(base, closed);
	return { state: r.state, recorded: recorded + 1, previousEnd: r.end, from, closed };
}

/** Drives the chain from `task` until it completes, blocks, or runs out of turns; continues a recorded one. */
export async function drive(task: string, options: DriveOptions): Promise<DriveResult> {
	const policy = options.handoff ?? DEFAULT_POLICY;
	const none = { turns: [], usage: emptyUsage() };
	if (!policy.enabled) {
		return {
			...none,
			end: "refused",
			logDir: options.logDir ?? "",
			message:
				"the handoff protocol is switched off (HANDOFF_ENABLED or enable_handoff), and the driver chains " +
				"turns by their handoff documents; turn it on for this run with HANDOFF_ENABLED=true",
		};
	}
	const sha = taskSha(task);
	const key = runKey(options.keyDir);
	if (!key.ok) return { ...none, end: "refused", logDir: options.logDir ?? "", message: key.error };
	const root = projectRoot(options.cwd);
	const found = options.fresh ? ({ kind: "none" } as const) : readPointer(options.cwd, key.key);
	if (found.kind === "untrusted")
		options.onNote?.(`${untrustedRecord(".pi/drive/current.json", found.why)}; this drive starts afresh`);
	const pointer = found.kind === "ok" ? found.pointer : undefined;
	let earlier: DriveEntry[] = [];
	let sealedUpTo: string | undefined;
	let logDir = options.logDir ?? join(options.cwd, ".pi", "drive", new Date().toISOString().replace(/[:.]/g, "-"));
	if (pointer) {
		const read = readSealedDriveJournal(pointer.logDir, key.key);
		if (!read.ok) options.onNote?.(`${untrustedRecord(pointer.logDir, read.why)}; this drive starts afresh`);
		const ended = read.ok ? read.entries.findLast((e) => e.type === "drive_end") : undefined;
		const last = read.ok ? read.entries.at(-1) : undefined;
		const complete = last?.type === "drive_end" && ended?.type === "drive_end" && ended.end === "complete";
		if (pointer.taskSha === sha) {
			if (complete) return { ...none, end: "complete", logDir: pointer.logDir, alreadyComplete: true };
			if (read.ok) {
				earlier = read.entries;
				logDir = pointer.logDir;
				sealedUpTo = read.last;
			}
		} else if (read.ok && !complete && read.entries.some((e) => e.type === "turn_start")) {
			return {
				...none,
				end: "refused",
				logDir: pointer.logDir,
				message:
					`an unfinished drive of another task is recorded in ${pointer.logDir}; ` +
					"run that task again to continue it, or start this one with --fresh",
			};
		}
	}
	// Every record is written inside the project (or the log folder the person named), never through a link.
	const roots = [root, ...(options.logDir ? [options.logDir] : []), ...(sealedUpTo ? [logDir] : [])];
	try {
		safeMkdir(logDir, roots);
	} catch (error) {
		return { ...none, end: "refused", logDir, message: (error as Error).message };
	}
	// One driver per drive: a live one refuses a second; a killed one's lock is stale and taken over.
	const lock = acquireLock(logDir);
	if (!lock.ok) return { ...none, end: "refused", logDir, message: lock.message.replace(/^the run/, "this drive") };
	let journal: DriveJournal | undefined;
	try {
		try {
			if (sealedUpTo === undefined) {
				// A new drive in a folder that holds an old one's record keeps that record under other names.
				setAside(logDir);
				sealedUpTo = startDriveRecord(logDir, sha, key.key, roots);
			}
			journal = openDriveJournal(logDir, { key: key.key, last: sealedUpTo }, roots);
			writePointer(options.cwd, { logDir, taskSha: sha }, key.key, [root]);
		} catch (error) {
			return { ...none, end: "refused", logDir, message: (error as Error).message };
		}
		const life = earlier.filter((e) => e.type === "drive_start").length + 1;
		journal.append({ type: "drive_start", life, task, taskSha: sha, at: now(), pid: process.pid });
		let state: RelayState = { n: 1, task, resets: 0 };
		let resumed: DriveResume | undefined;
		if (earlier.length) {
			const disk = await readHandoff(options.cwd);
			const r = replay(earlier, task, disk.ok ? disk.doc : undefined);
			state = r.state;
			if ("closed" in r && r.closed) {
				const error = "the driver stopped during this turn, after it had saved this document";
				journal.append({ type: "turn_end", ...r.closed, error, usage: emptyUsage(), at: now() });
			}
			if (r.previousEnd === "complete") {
				// Killed between the last turn's end and the chain's: the chain is complete, nothing to run.
				journal.append({ type: "drive_end", end: "complete", at: now() });
				return { turns: [], usage: emptyUsage(), end: "complete", logDir, alreadyComplete: true };
			}
			resumed = {
				logDir,
				recorded: r.recorded,
				n: state.n,
				from: state.doc ? r.from : "task",
				...(state.doc ? { doc: state.doc } : {}),
				...("redo" in r && r.redo ? { redo: true } : {}),
				...(r.previousEnd ? { previousEnd: r.previousEnd } : {}),
			};
			options.onResume?.(resumed);
		}
		const result = await driveTurns({ start: state, options, policy, journal, logDir, life, roots });
		journal.append({ type: "drive_end", end: result.end, at: now() });
		return { ...result, logDir, ...(resumed ? { resumed } : {}) };
	} finally {
		journal?.close();
		lock.release();
	}
}

/**
 * Runs turns from `start` until the relay ends; `life` numbers this process among the run's lives (each
 * restart after a crash is one) so the journal can tell them apart.
 */
async function driveTurns({
	start,
	options,
	policy,
	journal,
	logDir,
	life,
	roots,
}: {
	start: RelayState;
	options: DriveOptions;
	policy: HandoffPolicy;
	journal: DriveJournal;
	logDir: string;
	life: number;
	/** Where the drive's records may be written (src/fs-safe). */
	roots: readonly string[];
}): Promise<Omit<DriveResult, "logDir">> {
	const maxTurns = options.maxTurns ?? 10;
	const turns: DriveTurn[] = [];
	let usage = emptyUsage();
	let state = start;
	for (let started = 0; ; started++) {
		if (options.signal?.aborted) return { end: "stopped", turns, usage };
		if (started >= maxTurns) return { end: "max-turns", turns, usage };
		const kickoff = kickoffOf(state);
		const onDisk = await readHandoff(options.cwd);
		const before = onDisk.ok ? { before: onDisk.doc.writtenAt } : {};
		journal.append({ type: "turn_start", n: state.n, life, task: state.task, ...before, at: now() });
		const turn = await oneTurn(state, kickoff, options, policy, journal);
		usage = addUsage(usage, turn.usage);
		turns.push(turn);
		const { n, outcome, doc, error } = turn;
		const kept = { ...(doc ? { doc } : {}), ...(error ? { error } : {}) };
		journal.append({ type: "turn_end", n, outcome, ...kept, usage: turn.usage, at: now() });
		try {
			safeWrite(join(logDir, `turn-${turn.n}.json`), `${redactedJson(turn, 2)}\n`, roots);
			if (turn.doc) safeWrite(join(logDir, `turn-${turn.n}.handoff.md`), redactText(renderHandoff(turn.doc)), roots);
		} catch (error) {
			// A link a turn's bash left in the log folder: the turn is recorded in the journal; nothing goes through it.
			return { end: "refused", turns, usage, message: (error as Error).message };
		}
		options.onTurn?.(turn);
		const next = advance(state, turn);
		state = next.state;
		if (next.end) return { end: next.end, turns, usage };
	}
}

async function oneTurn(
	state: RelayState,
	kickoff: string,
	options: DriveOptions,
	policy: HandoffPolicy,
	journal: DriveJournal,
): Promise<DriveTurn> {
	const { n } = state;
	const capture: HandoffCapture = {};
	// Each document is HANDOFF.md, then a journal line, before the tool returns: at most one step stale.
	// A refused write (HANDOFF.md is a link, the disk is full) is the real cause of whatever the turn does
	// next, so the turn's line says it first.
	let refused: string | undefined;
	const save = async (doc: HandoffDocument) => {
		const written = await writeHandoff(options.cwd, doc);
		if (!written.ok) {
			refused = written.message;
			return written.message;
		}
		journal.append({ type: "handoff", n, doc, at: now() });
		return undefined;
	};
	const resetsLeft = () => state.resets < policy.maxResets;
	let sub: Awaited<ReturnType<Spawn>> | undefined;
	let usage = emptyUsage();
	const stopped = () => options.signal?.aborted === true;
	const end = (outcome: TurnOutcome, failure?: string): DriveTurn => {
		const error = refused && failure ? `${refused} Then: ${failure}` : (refused ?? failure);
		return { n, kickoff, outcome, ...(capture.doc ? { doc: capture.doc } : {}), ...(error ? { error } : {}), usage };
	};
	try {
		sub = await options.spawn({
			agent: options.agent,
			...(options.model ? { model: options.model } : {}),
			cwd: options.cwd,
			customTools: [
				finishTool(capture, { save }),
				checkpointTool(capture, policy.checkpointReset, { save, resetsLeft }),
			],
		});
		const directive = landThePlaneDirective({ canReset: resetsLeft() });
		const watermark = { threshold: policy.watermark, directive, muted: () => handedOff(capture) };
		const ask = (text: string, label: string) =>
			(sub as NonNullable<typeof sub>).ask(text, {
				label,
				watermark,
				...(options.signal ? { signal: options.signal } : {}),
				...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
			});
		const first = await ask(kickoff, `turn${n}`);
		usage = addUsage(usage, first.usage);
		if (!first.ok) return stopped() ? end("stopped") : end("crashed", first.error ?? "failed");
		if (handedOff(capture)) return end("handoff");
		// The turn ended without a handoff: the same session, which still holds the work, writes it now.
		const recovery = await ask(RECOVERY, `turn${n}/recover`);
		usage = addUsage(usage, recovery.usage);
		if (stopped()) return end("stopped");
		if (handedOff(capture)) return end("recovered");
		return end("no-handoff", recovery.ok ? undefined : (recovery.error ?? "failed"));
	} catch (error) {
		return stopped() ? end("stopped") : end("crashed", (error as Error).message ?? String(error));
	} finally {
		await sub?.close();
	}
}

function now(): string {
	return new Date().toISOString();
}

/** Moves an earlier drive's record in `logDir` aside (renames move a link itself, never what it points to). */
function setAside(logDir: string): void {
	const suffix = now().replace(/[:.]/g, "-");
	for (const name of ["journal.jsonl", SEAL_FILE, DRIVE_SEAL.head]) {
		const path = join(logDir, name);
		if (existsSync(path) || isLink(path)) renameSync(path, join(logDir, `${name}.${suffix}`));
	}
}
