/**
 * The run folder's recorder: the journal (facts, flushed at each visit's end), `events.jsonl` (every
 * event, for reports), transcripts (each turn's messages, per visit) and the usage tally behind
 * `usage.json`. A failing write is reported once and makes the run fail resumably, never silently.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AskAnswer, AskCard, EndedVisit, RunRecorder } from "../engine/index.ts";
import type { Value } from "../language/types/index.ts";
import type { VisitIdentity } from "../identity/index.ts";
import { type FlowEvent, TRACE_ONLY_EVENTS } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import { redactedJson } from "../secrets/index.ts";
import { appendJsonLines, appendNoLink } from "./files.ts";
import type { JournalWriter } from "./journal.ts";

/** How a failed write of the run's record is reported: the same words for every write, so callers can tell it. */
export function journalFailure(what: string, error: unknown): string {
	return `the journal could not be written (${what}): ${error instanceof Error ? error.message : String(error)}`;
}

/** A recorder on a run folder, plus what the runner needs from it afterwards. */
export interface FolderRecorder extends RunRecorder {
	/** The event sink that writes `events.jsonl`. */
	onEvent(event: FlowEvent): void;
	/** The first write that failed, if any. */
	failure(): string | undefined;
	/** Writes buffered events out; the runner calls it when a life ends. */
	flush(): void;
}

/** The longest an event waits in the buffer before it is written to `events.jsonl`. */
export const EVENTS_LATENCY_MS = 100;

/** Opens the recorder of one life of a run; `onFailure` hears the first failed write, once (the runner stops the run). */
export function folderRecorder(
	runDir: string,
	journal: JournalWriter,
	life: number,
	onFailure?: (message: string) => void,
): FolderRecorder {
	let failed: string | undefined;
	const guard = (what: string, fn: () => void) => {
		if (failed) return;
		try {
			fn();
		} catch (error) {
			failed = journalFailure(what, error);
			onFailure?.(failed);
		}
	};
	const at = () => new Date().toISOString();
	const transcripts = join(runDir, "transcripts");
	// Events are for reports, not for resumes: they are buffered and written in batches (a resume that
	// replays thousands of visits would otherwise spend its time in one write per event).
	let pending: string[] = [];
	// ...and written within EVENTS_LATENCY_MS of happening, so a watcher (`pi-flows serve`) follows the run live.
	let timer: NodeJS.Timeout | undefined;
	const flush = () =>
		guard("events", () => {
			if (timer) clearTimeout(timer);
			timer = undefined;
			if (!pending.length) return;
			const lines = pending;
			pending = [];
			appendNoLink(join(runDir, "events.jsonl"), `${lines.join("\n")}\n`);
		});
	return {
		visitStart: (path, node, kind) =>
			guard("visit start", () => journal.append({ type: "visit_start", life, path, node, kind, at: at() })),
		// A reused visit's end is not flushed on its own: lost in a crash, a resume takes it again from the
		// same earlier run (and a change it wrote again is then found already in the tree).
		visitEnd: (path: string, node: string, kind: string, ended: EndedVisit, usage: Usage) =>
			guard("visit end", () =>
				journal.append(
					{ type: "visit_end", life, path, node, kind, ended, usage, at: at() },
					ended.reuse?.outcome !== "reused",
				),
			),
		mapItems: (path: string, items: readonly Value[]) =>
			guard("map items", () => journal.append({ type: "map_items", path, items: [...items] }, true)),
		carried: (path: string, value: Value) => guard("carry", () => journal.append({ type: "carry", path, value }, true)),
		asked: (path: string, card: AskCard, answer: AskAnswer) =>
			guard("answer", () => journal.append({ type: "asked", path, question: card.question, answer }, true)),
		toolCall: (path: string, tool: string) =>
			guard("tool call", () => journal.append({ type: "tool_call", life, path, tool })),
		tree: (path: string, snapshot: { tree: string; head?: string }) =>
			guard("tree", () => journal.append({ type: "tree", life, path, ...snapshot, at: at() }, true)),
		fact: (path: string, key: string, value: Value) =>
			guard("fact", () => journal.append({ type: "fact", life, path, key, value, at: at() }, true)),
		handoff: (path: string, doc: Value) =>
			guard("handoff", () => journal.append({ type: "handoff", life, path, doc, at: at() }, true)),
		// Not flushed on its own: the visit's end, which needs it, is.
		identity: (path: string, identity: VisitIdentity) =>
			guard("identity", () => journal.append({ type: "identity", life, path, identity })),
		transcript: (path: string, subagent: string, messages: readonly unknown[]) =>
			guard("transcript", () => {
				mkdirSync(transcripts, { recursive: true });
				const lines = messages.map((m) => ({ life, visit: path, message: m }));
				appendJsonLines(join(transcripts, `${subagent.replace(/[^A-Za-z0-9_.-]/g, "-")}.jsonl`), lines);
			}),
		onEvent(event) {
			// A trace's own facts (asked only while tracing): events.jsonl is the same traced or not.
			if (TRACE_ONLY_EVENTS.has(event.type)) return;
			// Serialised (and masked) now: the event object may change after it was announced.
			pending.push(redactedJson({ ...event, life, at: at() }));
			if (pending.length >= 512 || event.type === "run_end") flush();
			else if (!timer) {
				timer = setTimeout(flush, EVENTS_LATENCY_MS);
				timer.unref();
			}
		},
		failure: () => failed,
		flush,
	};
}
