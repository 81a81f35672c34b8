/**
 * A run's lives: a run folder with a snapshot, a lock, a journal flushed at each visit's end, events,
 * `usage.json` and `result.json`. `startRun` begins a run's first life; `resumeRun` starts another from its
 * journal: ended visits are replayed, answered questions are not asked again, a map's items stay as they
 * were read, a turn cut mid-way runs again (and is reported in doubt when it may have written to the tree).
 * (Named for lives, not "runner": a kind's runner is `KindRunner` in src/engine/kind.ts.)
 */
import { readFileSync, truncateSync } from "node:fs";
import type { Tracer } from "@opentelemetry/api";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { resolvesInside } from "../fs-safe/index.ts";
import { projectRoot, rosterOf } from "../agents/index.ts";
import {
	type Budget,
	type FlowResult,
	type ModelDoor,
	readyModels,
	type ReuseSource,
	type RunOptions,
} from "../engine/index.ts";
import { runFlow } from "../kinds/run.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { checkFlowText } from "../load/index.ts";
import { reuseSummary } from "../identity/index.ts";
import { fanOutEvents } from "../runtime/index.ts";
import { flatFailure } from "../runtime/index.ts";
import { emptyUsage } from "../runtime/index.ts";
import { redactedJson } from "../secrets/index.ts";
import { guardedPaths as writeGuard } from "../guard/index.ts";
import { captureWanted, type RunTrace, traceRun } from "../telemetry/index.ts";
import { lifeTraces } from "./life-traces.ts";
import { writeJsonAtomic } from "./files.ts";
import { folderControl } from "./control.ts";
import { fileJournal, type JournalEntry, type JournalWriter, readJournal } from "./journal.ts";
import { acquireLock, type LockOutcome } from "./lock.ts";
import { folderRecorder, journalFailure } from "./recorder.ts";
import { describeInDoubt, inDoubtChanges, putBack } from "./in-doubt.ts";
import { decidedByFlow, journalState } from "./replay.ts";
import { newRunFolder } from "./run-folder.ts";
import { journalSealer, type JournalSealer, runKey, sealSnapshot, trimJournal, verifyRun } from "./seal.ts";
import { readSnapshot, type Snapshot, snapshotOf, snapshotText, writeSnapshot } from "./snapshot.ts";
import { type UsageFile, usageOf, writeUsage } from "./usage-file.ts";

/** What a finished life of a run reports. */
export interface RunOutcome {
	runDir: string;
	result: FlowResult;
	usage: UsageFile;
	/**
	 * Files of the run's end that could not be written (`usage.json: ENOSPC …`). The result stands (the
	 * journal has it, and a report rebuilds usage from the journal), but whoever shows the outcome says so.
	 */
	unwritten?: string[];
	/**
	 * For a resume: where it picked up, and what changed on disk since the snapshot. `notes`: one line
	 * each for what the resume mended on its way (a dead lock taken over, a torn journal line dropped).
	 */
	resumed?: { life: number; replayed: number; rerun: string[]; changed?: string; notes?: string[] };
}

/** Options of a new run: the evaluator's, plus where the folder goes and what the snapshot records. */
export interface StartOptions extends Omit<RunOptions, "recorder" | "replay" | "scripts"> {
	runsHome: string;
	scripts: ReadonlyMap<string, string>;
	somebodyThere: boolean;
	model?: string;
	script?: { file: string; text: string };
	/** Replaces the journal file (fault injection in tests). */
	journal?: (path: string) => JournalWriter;
	/** The pi agent folder holding the person's run key (see `seal.ts`). Default: pi's agent dir. */
	keyDir?: string;
	/**
	 * The run's trace: a tracer (default the global one, a no-op without an SDK), whether message
	 * content goes on spans (default `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`), and the caller's
	 * span as W3C `traceparent` (an MCP call's `_meta.traceparent`, a pipeline's `TRACEPARENT`): this life's
	 * root is then its child, so the run shows inside the trace of whatever asked for it.
	 */
	telemetry?: { tracer?: Tracer; capture?: boolean; parent?: string };
	/**
	 * Told the run's folder once it is made and locked, before the first visit: a surface that hands out
	 * a handle to a run still under way (the MCP server) names it by its folder.
	 */
	onRunDir?: (runDir: string) => void;
	/** The nodes `reuse` plays again whatever their identity (`--rerun-from`), recorded for a resume. */
	rerunFrom?: readonly string[];
}

/** The chain a life's journal appends continue: the person's key and the last seal. */
interface SealFrom {
	key: Buffer;
	last: string;
}

/** Starts a run in a new folder. */
export async function startRun(flow: CheckedFlow, input: Value, options: StartOptions): Promise<RunOutcome | Refusal> {
	const key = runKey(options.keyDir);
	if (!key.ok) return { ok: false, refused: key.error };
	let runDir: string;
	try {
		runDir = newRunFolder(options.runsHome, flow.name.value, new Date(), options.cwd);
	} catch (error) {
		return { ok: false, refused: `cannot make the run folder: ${(error as Error).message}` };
	}
	const snapshot = snapshotOf(flow, input, options.scripts, {
		cwd: options.cwd,
		somebodyThere: options.somebodyThere,
		...(options.model ? { model: options.model } : {}),
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
		...(options.budget ? { budget: options.budget } : {}),
		...(options.script ? { script: options.script } : {}),
		...(options.reuse ? { reuse: options.reuse.from } : {}),
		...(options.reuse && options.rerunFrom?.length ? { rerunFrom: [...options.rerunFrom] } : {}),
	});
	const first = sealSnapshot(key.key, runDir, snapshotText(snapshot));
	writeSnapshot(runDir, snapshot);
	const lock = acquireLock(runDir);
	if (!lock.ok) return { ok: false, refused: lock.message };
	options.onRunDir?.(runDir);
	return runLife({ runDir, flow, input, options, life: 1, sealFrom: { key: key.key, last: first }, lock });
}

/** How a resume treats a turn that was cut after it may have written to the tree. */
export type InDoubt = "rerun" | "stop";

/** Options of a resume. */
export interface ResumeOptions
	extends Omit<StartOptions, "runsHome" | "models" | "scripts" | "somebodyThere" | "model" | "script"> {
	runDir: string;
	somebodyThere: boolean;
	/** Resolves the snapshot's models (the caller opens pi with the snapshot's settings). */
	models: (
		flow: CheckedFlow,
		snapshot: Snapshot,
	) => RunOptions["models"] | string[] | Promise<RunOptions["models"] | string[]>;
	inDoubt: InDoubt;
	takeLock?: boolean;
	/**
	 * Opens the run a reused run reused from (the snapshot's `settings.reuse`), so the visits still to run
	 * reuse from it too; a run it can no longer open is said in a note and the rest plays.
	 */
	reuseFrom?: (from: string) => ReuseSource | { error: string };
	/** Told each line of `resumed.notes` as it happens (a dead lock taken over), before the run goes on. */
	onNote?: (line: string) => void;
}

type HeldLock = Extract<LockOutcome, { ok: true }>;

/** Cuts a journal back to its last whole line. */
function dropTornTail(path: string): void {
	const text = readFileSync(path, "utf8");
	truncateSync(path, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
}

/** A resume that cannot start, and why. */
export type Refusal = { ok: false; refused: string };

/**
 * Continues a run from its journal. The lock is taken before the journal is read, so of two resumes
 * racing for one run exactly one runs, and it reads the journal as the other left it.
 */
export async function resumeRun(options: ResumeOptions): Promise<RunOutcome | Refusal> {
	const key = runKey(options.keyDir);
	if (!key.ok) return { ok: false, refused: key.error };
	const lock = acquireLock(options.runDir, { force: options.takeLock === true });
	if (!lock.ok) return { ok: false, refused: lock.message };
	try {
		// Only a run this person made here is resumed: its snapshot says what runs, with which tools and
		// scripts. Verified under the lock, so a resume still appending never looks torn to this one.
		const verified = verifyRun(key.key, options.runDir);
		if (!verified.ok) return { ok: false, refused: verified.why };
		const trimmed = trimJournal(options.runDir, verified.lines);
		const snap = readSnapshot(options.runDir, verified.snapshot);
		if (!snap.ok) return { ok: false, refused: snap.error };
		return await resumeLocked(options, snap.value, lock, { key: key.key, last: verified.last }, trimmed);
	} finally {
		lock.release();
	}
}

async function resumeLocked(
	options: ResumeOptions,
	snapshot: Snapshot,
	lock: HeldLock,
	sealFrom: SealFrom,
	trimmed?: string,
): Promise<RunOutcome | Refusal> {
	const notes: string[] = [...(lock.note ? [lock.note] : []), ...(trimmed ? [trimmed] : [])];
	const journalPath = join(options.runDir, "journal.jsonl");
	const read = readJournal(journalPath);
	if (!read.ok) return { ok: false, refused: read.error };
	// A torn last line would glue itself to this life's first entry: it is cut off before anything is appended.
	if (read.torn) {
		dropTornTail(journalPath);
		notes.push("the journal's last line was cut mid-write by the crash; that unfinished fact was dropped");
	}
	for (const note of notes) options.onNote?.(note);
	const state = journalState(read.entries);
	if (state.end?.ok) return { ok: false, refused: "the run ended well; there is nothing to resume" };
	if (state.end && decidedByFlow(state.end.errorKind, state.causeKind)) {
		const kind = state.end.errorKind === "child" ? state.causeKind : state.end.errorKind;
		return {
			ok: false,
			refused: `the run failed by the flow's own decision (${kind} at ${state.end.failedAt}); a resume would decide the same`,
		};
	}
	const doubt = await inDoubtChanges(options.cwd, read.entries, state.inDoubt);
	if (state.inDoubt.length && options.inDoubt === "stop") {
		return {
			ok: false,
			refused: `in doubt: ${describeInDoubt(doubt)} may have written to the tree before the cut; resume with --in-doubt rerun to put its files back and run it again from its start`,
		};
	}
	// Rerun from exactly the tree each in-doubt visit started from, so its writes land once.
	for (const note of await putBack(options.cwd, doubt)) options.onNote?.(note);
	const flow = fromSnapshot(snapshot);
	if ("error" in flow) return { ok: false, refused: flow.error };
	const models = await options.models(flow.value, snapshot);
	if (Array.isArray(models)) return { ok: false, refused: models.join("; ") };
	const changed = changedOnDisk(snapshot);
	const budget: Budget | undefined = options.budget ?? snapshot.settings.budget;
	let reuse: ReuseSource | undefined;
	if (snapshot.settings.reuse && options.reuseFrom) {
		const opened = options.reuseFrom(snapshot.settings.reuse);
		if ("error" in opened) {
			const note = `the run it reused from cannot be read any more (${opened.error}); what is left plays`;
			notes.push(note);
			options.onNote?.(note);
		} else reuse = opened;
	}
	const outcome = await runLife({
		runDir: options.runDir,
		flow: flow.value,
		input: snapshot.input,
		options: {
			...options,
			models,
			runsHome: "",
			scripts: new Map(Object.entries(snapshot.scripts)),
			...(budget ? { budget } : {}),
			...(snapshot.settings.timeoutMs !== undefined && options.timeoutMs === undefined
				? { timeoutMs: snapshot.settings.timeoutMs }
				: {}),
			...(snapshot.settings.idleTimeoutMs !== undefined && options.idleTimeoutMs === undefined
				? { idleTimeoutMs: snapshot.settings.idleTimeoutMs }
				: {}),
			spentBefore: state.spent,
			...(reuse ? { reuse } : {}),
		},
		life: state.lives + 1,
		sealFrom,
		lock,
		replay: state.replay,
		earlier: read.entries,
		...(state.inDoubt.length ? { inDoubt: state.inDoubt } : {}),
	});
	if ("refused" in outcome) return outcome;
	const replayed = outcome.result.visits.length;
	return {
		...outcome,
		resumed: {
			life: state.lives + 1,
			replayed,
			rerun: state.cut,
			...(changed ? { changed } : {}),
			...(notes.length ? { notes } : {}),
		},
	};
}

/** The snapshot's flow, checked again from its own texts (never from the disk). */
export function fromSnapshot(snapshot: Snapshot): { value: CheckedFlow } | { error: string } {
	const roster = rosterOf(snapshot.agents.map((a) => ({ ...a, kind: "agent" as const })));
	const texts = new Map(snapshot.callees.map((c) => [c.file, c.text]));
	const byName = new Map(snapshot.callees.map((c) => [c.name, c]));
	const checked = checkFlowText(snapshot.flow.text, snapshot.flow.file, roster, {
		flows: (name) => byName.get(name),
		flowNames: () => [...byName.keys()],
		read: (file) => texts.get(file),
		skills: {
			find: (name) => snapshot.skills?.find((k) => k.name === name),
			names: () => (snapshot.skills ?? []).map((k) => k.name),
		},
	});
	if (!checked.value)
		return {
			error: `the snapshot no longer checks: ${checked.faults.map((f) => `${f.line}:${f.column} ${f.code}`).join(", ")}`,
		};
	return { value: checked.value };
}

function changedOnDisk(snapshot: Snapshot): string | undefined {
	const changed = [snapshot.flow, ...snapshot.callees].filter((f) => {
		try {
			return readFileSync(f.file, "utf8") !== f.text;
		} catch {
			return true;
		}
	});
	return changed.length
		? `${changed.map((f) => f.name).join(", ")} changed on disk since the run started; the snapshot runs`
		: undefined;
}

/** One life of a run: what it runs, where it writes, and what earlier lives left it. */
interface LifeOptions {
	runDir: string;
	flow: CheckedFlow;
	input: Value;
	options: StartOptions & { spentBefore?: { tokens: number; cost: number; turns: number } };
	/** This life's number, from 1. */
	life: number;
	/** The seal chain the journal's appends continue. */
	sealFrom: SealFrom;
	/** Held for the whole life and released at its end, whatever happens. */
	lock: HeldLock;
	/** What earlier lives ended, for a resume. */
	replay?: RunOptions["replay"];
	/** Earlier lives' journal entries: `usage.json` counts the whole run. */
	earlier?: readonly JournalEntry[];
	/** Visits cut after a tool that writes, which this life runs again (`--in-doubt rerun`). */
	inDoubt?: readonly string[];
}

/**
 * Runs one life of a run in its folder: opens the sealed journal, runs the flow with the run's recorder,
 * journals how it ended, and writes `usage.json` and `result.json`. The first failed write of the run's
 * record stops the run (see {@link haltOnFailure}); the lock is released at the end whatever happens.
 */
async function runLife(l: LifeOptions): Promise<RunOutcome | Refusal> {
	const { runDir, life: n } = l;
	// Watchers (`pi-flows serve`) answer this life's questions and ask it to stop through the run folder.
	const control = folderControl(runDir, n);
	const options = { ...l.options, ask: control.ask(l.options.ask) };
	const halt = haltOnFailure(l.options.signal ? AbortSignal.any([l.options.signal, control.signal]) : control.signal);
	const journal = sealedJournal(join(runDir, "journal.jsonl"), runDir, l.sealFrom, options.journal);
	// The life's trace opens before its journal entry, which keeps the root for the next life to link to.
	const traced = traceRun({
		flow: l.flow.name.value,
		run: basename(runDir),
		life: n,
		backend: "folder",
		earlier: lifeTraces(l.earlier ?? []),
		bounds: l.flow.bounds,
		bound: l.flow.bound,
		...(l.inDoubt ? { inDoubt: l.inDoubt } : {}),
		capture: options.telemetry?.capture ?? captureWanted(process.env),
		...(options.telemetry?.tracer ? { tracer: options.telemetry.tracer } : {}),
		...(options.telemetry?.parent ? { parent: options.telemetry.parent } : {}),
	});
	/** One of the runner's own writes to the journal; a failure is a value, as in the recorder. */
	const record = (what: string, fn: () => void) => {
		try {
			fn();
		} catch (error) {
			halt.fail(journalFailure(what, error));
		}
	};
	try {
		record("open", () => journal.open());
		if (journal.opened())
			record("life start", () =>
				journal.append(
					{
						type: "life_start",
						life: n,
						at: new Date().toISOString(),
						pid: process.pid,
						host: hostname(),
						...(traced.traceparent ? { trace: traced.traceparent } : {}),
					},
					true,
				),
			);
		const result = await runFlowOnce({ ...l, options }, journal, halt, traced);
		// Every failed write reaches `fail` (the recorder's too). A run stopped by it failed because of the
		// journal, whatever the walk made of the cut ("the run was stopped"): the journal's error is the one to tell.
		const ending = (): FlowResult => {
			const failure = halt.failure();
			return failure ? { ...result, ok: false, ...flatFailure({ kind: "unavailable", message: failure }) } : result;
		};
		if (!halt.failure() && !journal.broken()) record("run end", () => journal.append(runEndEntry(n, ending()), true));
		record("close", () => journal.close());
		const final = ending();
		traced.end(final);
		const entries = [...(l.earlier ?? []), ...journal.written];
		const unwritten = writeEndFiles(runDir, n, final, entries, options.budget);
		return {
			runDir,
			result: final,
			usage: usageOf(entries, options.budget),
			...(unwritten.length ? { unwritten } : {}),
		};
	} finally {
		// Ended above with the result; a life that threw on its way ends its trace here, said unfinished.
		traced.end();
		control.close();
		halt.dispose();
		// Closed already unless the life threw on its way; closing is idempotent, and a failure to close is
		// recorded like any failed write rather than masking the throw, so the lock is always released.
		record("close", () => journal.close());
		l.lock.release();
	}
}

/**
 * The life's stop: the caller's signal, or the first failed write of the run's record. After such a
 * failure no turn starts, turns in flight are cut through the signal, and the run ends failed (resumable
 * from what the journal holds); later failures add nothing.
 */
function haltOnFailure(signal: AbortSignal | undefined): {
	signal: AbortSignal;
	fail(message: string): void;
	failure(): string | undefined;
	dispose(): void;
} {
	let failure: string | undefined;
	const stop = new AbortController();
	const onStop = () => stop.abort(signal?.reason);
	if (signal?.aborted) onStop();
	signal?.addEventListener("abort", onStop, { once: true });
	return {
		signal: stop.signal,
		fail(message) {
			if (failure) return;
			failure = message;
			stop.abort(new Error(message));
		},
		failure: () => failure,
		dispose: () => signal?.removeEventListener("abort", onStop),
	};
}

/**
 * The life's journal: each append goes to the file and is sealed, and is kept in `written` (so
 * `usage.json` needs no second read). After one failed append nothing more is appended, so the journal
 * stays a prefix of what happened.
 */
function sealedJournal(
	path: string,
	runDir: string,
	sealFrom: SealFrom,
	openFile: StartOptions["journal"] = fileJournal,
): JournalWriter & { open(): void; opened(): boolean; broken(): boolean; readonly written: JournalEntry[] } {
	const written: JournalEntry[] = [];
	let broken = false;
	let file: JournalWriter | undefined;
	let sealer: JournalSealer | undefined;
	return {
		written,
		open() {
			file = openFile(path);
			sealer = journalSealer(sealFrom.key, runDir, sealFrom.last);
		},
		opened: () => file !== undefined,
		broken: () => broken,
		append(entry, durable) {
			if (broken || !file || !sealer) return;
			try {
				file.append(entry, durable);
				// The line as fileJournal wrote it (masked); a line the seal does not cover is cut off by the next resume.
				sealer.seal(redactedJson(entry), durable === true);
			} catch (error) {
				broken = true;
				throw error;
			}
			written.push(entry);
		},
		close() {
			const f = file;
			const s = sealer;
			file = undefined;
			sealer = undefined;
			try {
				f?.close();
			} finally {
				s?.close();
			}
		},
	};
}

/**
 * The flow run on the life's recorder and stop, its turns kept out of the run's own record and the
 * project's flows and agents. A life whose journal did not open runs nothing and ends failed.
 */
async function runFlowOnce(
	l: LifeOptions,
	journal: JournalWriter,
	halt: ReturnType<typeof haltOnFailure>,
	traced: RunTrace,
): Promise<FlowResult> {
	const { runDir, flow, options } = l;
	const recorder = folderRecorder(runDir, journal, l.life, halt.fail);
	if (halt.failure()) return { flow: flow.name.value, ok: false, output: "", visits: [], usage: emptyUsage() };
	const guarded = guardedPaths(options.cwd, runDir);
	const result = await runFlow(flow, l.input, {
		...options,
		leaveOut: [...(options.leaveOut ?? []), dirname(runDir)],
		spawn: (request) => options.spawn({ ...request, protectedPaths: [...(request.protectedPaths ?? []), ...guarded] }),
		signal: halt.signal,
		sessionsDir: join(runDir, "sessions"),
		recorder,
		...(l.replay ? { replay: l.replay } : {}),
		...(traced.recording ? { requestEvents: true } : {}),
		onEvent: fanOutEvents(recorder.onEvent, traced.onEvent, options.onEvent),
	});
	if (!halt.failure()) recorder.flush();
	return result;
}

/**
 * What no turn of the run may write or edit beyond the guard of its own folder (src/pi adds that): the
 * run's record, and the run's project's guarded paths, which a turn working in a copy's worktree would
 * otherwise not see.
 */
function guardedPaths(cwd: string, runDir: string): string[] {
	const home = dirname(runDir);
	const records = [resolvesInside(projectRoot(cwd), home) ? home : runDir];
	return writeGuard({ cwd, records });
}

/** The journal's last word on a life, the same on every backend. */
export function runEndEntry(life: number, final: FlowResult): JournalEntry {
	return {
		type: "run_end",
		life,
		ok: final.ok,
		at: new Date().toISOString(),
		...(final.error ? { error: final.error } : {}),
		...(final.errorKind ? { errorKind: final.errorKind } : {}),
		...(final.failedAt ? { failedAt: final.failedAt } : {}),
		...(final.ok ? { output: final.output } : {}),
	};
}

/** Writes `usage.json` and `result.json`; returns what could not be written (reported, never thrown). */
function writeEndFiles(
	runDir: string,
	life: number,
	final: FlowResult,
	entries: readonly JournalEntry[],
	budget: Budget | undefined,
): string[] {
	const unwritten: string[] = [];
	const attempt = (name: string, write: () => void) => {
		try {
			write();
		} catch (error) {
			unwritten.push(`${name}: ${(error as Error).message ?? String(error)}`);
		}
	};
	attempt("usage.json", () => writeUsage(runDir, entries, budget));
	const reused = reuseSummary(final.visits);
	attempt("result.json", () =>
		writeJsonAtomic(join(runDir, "result.json"), {
			flow: final.flow,
			life,
			ok: final.ok,
			output: final.output,
			error: final.error,
			errorKind: final.errorKind,
			failedAt: final.failedAt,
			usage: final.usage,
			...(final.absorbed ? { absorbed: final.absorbed } : {}),
			...(reused ? { reuse: reused } : {}),
		}),
	);
	return unwritten;
}

/**
 * A resume's models as its snapshot launched them: the run's `--model`, or the scripted model for a dry
 * run, else each node's own; resolved and credentials asked before the first turn of the new life.
 */
export function snapshotModels(door: ModelDoor, snapshot: Snapshot): ResumeOptions["models"] {
	const runModel = snapshot.settings.model ?? (snapshot.settings.script ? "scripted" : undefined);
	return async (flow) => {
		const m = await readyModels(flow, door, runModel);
		return m.ok ? m.models : m.errors;
	};
}
