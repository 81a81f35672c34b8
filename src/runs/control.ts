/**
 * A run folder's control channel: how a process other than the one running a run (`pi-flows serve`, for
 * a person at a browser) answers its questions and asks it to stop, whatever hosts the run (a terminal,
 * pi, an unattended resume). Files in `<run>/control/`, never a socket, so it needs no service and works
 * for any process that can write the person's own run folder:
 *
 *   ask-<life>-<visit>.json          the question a waiting `ask` put, with the pid and life that wait
 *   ask-<life>-<visit>.answer.json   the answer that stands: created exclusively, so it is given once,
 *                                    by whichever side (the run's own prompt, or a watcher) came first
 *   stop-<life>.json                 a stop asked of that life; the life lands as Ctrl-C lands it
 *
 * The running life polls for both ({@link folderControl}); a watcher writes through {@link giveAnswer}
 * and {@link askStop}, which never follow a link and never leave the run folder.
 *
 * Example: a terminal run waits at "Which colour?"; `giveAnswer(dir, 1, "pick", { kind: "answer", value:
 * "blue" })` creates the answer file; the run's poll reads it, closes the terminal prompt (it says where
 * the answer came from) and the journal records `blue` once.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { constants } from "node:fs";
import { join } from "node:path";
import type { AskAnswer, AskCard, AskPort } from "../engine/index.ts";
import { unsafeWrite } from "../fs-safe/index.ts";
import { writeAtomic } from "./files.ts";

/** The control folder's name inside a run folder. */
export const CONTROL_DIR = "control";

/** How often a running life looks for an answer or a stop. */
export const CONTROL_POLL_MS = 100;

/** A question a run has put and waits on. */
export interface PutQuestion {
	life: number;
	/** The visit that asks; the card's `visit` too. */
	visit: string;
	card: AskCard;
	/** The process that waits (its lock's pid), so a watcher can tell a question nobody waits on any more. */
	pid: number;
	at: string;
}

/** Who answered when the run's own port did: whatever hosts the run asks through it. */
export const OWN_PROMPT = "the run's own prompt";

/** An answer as the answer file keeps it: what was decided, and by which side. */
export interface GivenAnswer {
	answer: AskAnswer;
	/** {@link OWN_PROMPT} (a terminal, pi's dialogs, an MCP client's form), or what the watcher calls itself. */
	by: string;
	at: string;
}

/** The reason a prompt is closed with when the answer came from elsewhere, so the prompt can say so. */
export class AnsweredElsewhere extends Error {
	readonly given: GivenAnswer;
	constructor(given: GivenAnswer) {
		super(`answered from ${given.by}: ${answerWords(given.answer)}`);
		this.name = "AnsweredElsewhere";
		this.given = given;
	}
}

/** An answer as a person reads it: the value, or what the kind means. */
export function answerWords(answer: AskAnswer): string {
	if (answer.kind === "answer") return typeof answer.value === "boolean" ? (answer.value ? "yes" : "no") : answer.value;
	return { enough: "that's enough", stopped: "stopped", timeout: "timed out", nobody: "nobody" }[answer.kind];
}

const base = (runDir: string) => join(runDir, CONTROL_DIR);
const key = (visit: string) => Buffer.from(visit, "utf8").toString("base64url");
const questionPath = (runDir: string, life: number, visit: string) =>
	join(base(runDir), `ask-${life}-${key(visit)}.json`);
const answerPath = (runDir: string, life: number, visit: string) =>
	join(base(runDir), `ask-${life}-${key(visit)}.answer.json`);
const stopPath = (runDir: string, life: number) => join(base(runDir), `stop-${life}.json`);

/** Whether `answer` is one the card takes: an option's label, yes/no, typed text where the card is open. */
export function answerFits(card: AskCard, answer: AskAnswer): boolean {
	if (answer.kind === "enough") return card.enough !== undefined;
	if (answer.kind !== "answer") return false;
	if (card.confirm) return typeof answer.value === "boolean";
	if (typeof answer.value !== "string" || !answer.value.trim()) return false;
	if (card.options && !card.open) return card.options.some((o) => o.label === answer.value) && !answer.custom;
	return true;
}

function readJsonFile<T>(path: string): T | undefined {
	try {
		return JSON.parse(readFileSync(path, "utf8")) as T;
	} catch {
		// Missing, or cut mid-write by a crash: not there yet.
		return undefined;
	}
}

/** Why the control folder cannot be written (a link out of the run folder, say), or undefined. */
function unsafe(runDir: string, file: string): string | undefined {
	return unsafeWrite(file, [runDir]);
}

/** Creates `path` with `text` exclusively, never through a link; false when it exists already. */
function createOnce(path: string, text: string): boolean {
	let fd: number;
	try {
		fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw error;
	}
	try {
		writeSync(fd, text);
	} finally {
		closeSync(fd);
	}
	return true;
}

/** The answer given to a life's question, if one stands. */
export function readAnswer(runDir: string, life: number, visit: string): GivenAnswer | undefined {
	const given = readJsonFile<GivenAnswer>(answerPath(runDir, life, visit));
	return given && typeof given === "object" && given.answer && typeof given.answer.kind === "string"
		? given
		: undefined;
}

/** Questions put in the run folder and not answered yet (whether anyone still waits is the caller's to judge by `pid`). */
export function putQuestions(runDir: string): PutQuestion[] {
	let names: string[];
	try {
		names = readdirSync(base(runDir));
	} catch {
		return [];
	}
	const out: PutQuestion[] = [];
	for (const name of names) {
		if (!/^ask-\d+-[A-Za-z0-9_-]*\.json$/.test(name)) continue;
		const q = readJsonFile<PutQuestion>(join(base(runDir), name));
		if (!q || typeof q.visit !== "string" || typeof q.life !== "number" || !q.card) continue;
		if (!readAnswer(runDir, q.life, q.visit)) out.push(q);
	}
	return out.sort((a, b) => a.at.localeCompare(b.at));
}

/** What giving an answer came to: it stands, or why not (with the answer that stood already, if one did). */
export type GiveOutcome = { ok: true } | { ok: false; error: string; standing?: GivenAnswer };

/**
 * Gives the answer to a question a run waits on, once: refused when no such question is put, when the
 * card does not take it, or when an answer stands already (the run's own prompt, or another watcher,
 * was first).
 */
export function giveAnswer(runDir: string, life: number, visit: string, answer: AskAnswer, by: string): GiveOutcome {
	const question = readJsonFile<PutQuestion>(questionPath(runDir, life, visit));
	const standing = readAnswer(runDir, life, visit);
	if (standing) return { ok: false, error: `already answered from ${standing.by}`, standing };
	if (!question) return { ok: false, error: `the run is not waiting on a question at ${visit}` };
	if (!answerFits(question.card, answer)) return { ok: false, error: "the question does not take that answer" };
	const path = answerPath(runDir, life, visit);
	const why = unsafe(runDir, path);
	if (why) return { ok: false, error: why };
	const given: GivenAnswer = { answer, by, at: new Date().toISOString() };
	if (createOnce(path, `${JSON.stringify(given)}\n`)) return { ok: true };
	const first = readAnswer(runDir, life, visit);
	return {
		ok: false,
		error: `already answered from ${first?.by ?? "elsewhere"}`,
		...(first ? { standing: first } : {}),
	};
}

/** Asks a life of a run to stop; it lands as Ctrl-C lands it. Refused only when the folder cannot be written. */
export function askStop(runDir: string, life: number, by: string): GiveOutcome {
	const path = stopPath(runDir, life);
	try {
		mkdirSync(base(runDir), { recursive: true });
	} catch (error) {
		return { ok: false, error: (error as Error).message };
	}
	const why = unsafe(runDir, path);
	if (why) return { ok: false, error: why };
	createOnce(path, `${JSON.stringify({ life, by, at: new Date().toISOString() })}\n`);
	return { ok: true };
}

/** Whether a stop of this life was asked. */
export function stopAsked(runDir: string, life: number): boolean {
	return existsSync(stopPath(runDir, life));
}

/** A life's end of the channel: its stop signal, its ask port raced against the folder, and its closing. */
export interface FolderControl {
	/** Aborted once a stop of this life is asked. */
	readonly signal: AbortSignal;
	/** `port` raced against answers given in the folder; undefined stays undefined (nobody to ask). */
	ask(port: AskPort | undefined): AskPort | undefined;
	close(): void;
}

/** Opens the channel of one life; the caller closes it when the life ends. */
export function folderControl(runDir: string, life: number, pollMs = CONTROL_POLL_MS): FolderControl {
	const stop = new AbortController();
	const waiting = new Map<string, (given: GivenAnswer) => void>();
	const look = () => {
		if (!stop.signal.aborted && stopAsked(runDir, life)) stop.abort();
		for (const [visit, settle] of waiting) {
			const given = readAnswer(runDir, life, visit);
			if (given) settle(given);
		}
	};
	const timer = setInterval(look, pollMs);
	timer.unref();
	return {
		signal: stop.signal,
		ask(port) {
			if (!port?.somebodyThere) return port;
			return {
				somebodyThere: true,
				ask: async (card, signal) => {
					// While a question waits, the poll keeps the process alive: the answer may only ever come from the folder.
					timer.ref();
					try {
						return await askRaced(runDir, life, port, card, signal, waiting);
					} finally {
						if (!waiting.size) timer.unref();
					}
				},
			};
		},
		close() {
			clearInterval(timer);
		},
	};
}

/**
 * One question: put in the folder, then the port's prompt raced against an answer file. The side that
 * creates the answer file first decides; a prompt that loses is closed with {@link AnsweredElsewhere}.
 */
async function askRaced(
	runDir: string,
	life: number,
	port: AskPort,
	card: AskCard,
	signal: AbortSignal | undefined,
	waiting: Map<string, (given: GivenAnswer) => void>,
): Promise<AskAnswer> {
	const qPath = questionPath(runDir, life, card.visit);
	let put = false;
	try {
		mkdirSync(base(runDir), { recursive: true });
		if (!unsafe(runDir, qPath)) {
			const q: PutQuestion = { life, visit: card.visit, card, pid: process.pid, at: new Date().toISOString() };
			writeAtomic(qPath, `${JSON.stringify(q)}\n`);
			put = true;
		}
	} catch {
		// A folder that cannot be written leaves the prompt alone in charge, as before there was a channel.
	}
	if (!put) return port.ask(card, signal);
	const prompt = new AbortController();
	const onStop = () => prompt.abort(signal?.reason);
	signal?.addEventListener("abort", onStop, { once: true });
	try {
		return await new Promise<AskAnswer>((resolve) => {
			let done = false;
			const finish = (answer: AskAnswer) => {
				if (done) return;
				done = true;
				resolve(answer);
			};
			// The folder's side: an answer file appeared (a watcher's, or the prompt's own just below).
			waiting.set(card.visit, (given) => {
				if (!done) prompt.abort(new AnsweredElsewhere(given));
				finish(answerFits(card, given.answer) ? given.answer : { kind: "nobody" });
			});
			port.ask(card, prompt.signal).then(
				(answer) => {
					if (done) return;
					// The run's own stop is no answer to keep: the question is simply left.
					if (answer.kind === "stopped" && signal?.aborted) return finish(answer);
					const given: GivenAnswer = { answer, by: OWN_PROMPT, at: new Date().toISOString() };
					try {
						if (createOnce(answerPath(runDir, life, card.visit), `${JSON.stringify(given)}\n`)) finish(answer);
						// Otherwise an answer was given elsewhere a moment before: it stands, and the poll returns it.
					} catch {
						finish(answer);
					}
				},
				() => finish({ kind: "nobody" }),
			);
		});
	} finally {
		waiting.delete(card.visit);
		signal?.removeEventListener("abort", onStop);
		rmSync(qPath, { force: true });
	}
}
