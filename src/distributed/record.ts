/**
 * The run's ports on Postgres: a recorder that writes the journal's facts (and the events a person follows)
 * to the store, and a replay that grows as a map's items end on other workers. The walk calls them exactly
 * as it calls the run folder's; it never learns which it has.
 *
 * The recorder's calls return at once (the walk's port is synchronous) and are written in batches, in
 * order; `drain` waits for every write so far and reports the first that failed. A worker drains before it
 * says an item is done, so the item's coordinator always finds its visits' ends when it replays the item.
 */
import { hostname } from "node:os";
import type { AskAnswer, AskCard, EndedVisit, Replay, RunRecorder } from "../engine/index.ts";
import type { Value } from "../language/types/index.ts";
import type { VisitIdentity } from "../identity/index.ts";
import { type FlowEvent, TRACE_ONLY_EVENTS } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import type { JournalEntry } from "../runs/index.ts";
import { journalState, troublesIn } from "../runs/index.ts";
import type { RunStore } from "./store.ts";
import { turnsOf } from "../cassette/index.ts";

/** A recorder on the store, plus its event sink and the wait for its writes. */
export interface StoreRecorder extends RunRecorder {
	onEvent(event: FlowEvent): void;
	/** Resolves once every fact and event so far is in the database; rejects with the first failed write. */
	drain(): Promise<void>;
	/** The first failed write, if any. */
	failure(): string | undefined;
}

/**
 * Opens the recorder of one life of a run on one worker. `keep` filters events (a worker's share of a map
 * sends only its own item's events; the coordinator sends the rest).
 */
export function storeRecorder(
	store: RunStore,
	runId: string,
	life: number,
	executor: string,
	options: { keep?: (event: FlowEvent) => boolean; onFailure?: (message: string) => void } = {},
): StoreRecorder {
	let facts: JournalEntry[] = [];
	let events: unknown[] = [];
	let writing: Promise<void> = Promise.resolve();
	let scheduled = false;
	let failed: string | undefined;
	const at = () => new Date().toISOString();
	const flush = () => {
		scheduled = false;
		const f = facts;
		const e = events;
		facts = [];
		events = [];
		writing = writing.then(async () => {
			if (failed) return;
			try {
				await store.append(runId, f, executor);
				await store.appendEvents(runId, e);
			} catch (error) {
				failed = `the run's record could not be written to the database: ${(error as Error).message}`;
				options.onFailure?.(failed);
			}
		});
	};
	const schedule = () => {
		if (scheduled) return;
		scheduled = true;
		setImmediate(flush);
	};
	const fact = (entry: JournalEntry) => {
		facts.push(entry);
		schedule();
	};
	return {
		visitStart: (path, node, kind) => fact({ type: "visit_start", life, path, node, kind, at: at() }),
		visitEnd: (path: string, node: string, kind: string, ended: EndedVisit, usage: Usage) =>
			fact({ type: "visit_end", life, path, node, kind, ended, usage, at: at() }),
		mapItems: (path: string, items: readonly Value[]) => fact({ type: "map_items", path, items: [...items] }),
		carried: (path: string, value: Value) => fact({ type: "carry", path, value }),
		asked: (path: string, card: AskCard, answer: AskAnswer) =>
			fact({ type: "asked", path, question: card.question, answer }),
		toolCall: (path: string, tool: string) => fact({ type: "tool_call", life, path, tool }),
		handoff: (path: string, doc: Value) => fact({ type: "handoff", life, path, doc, at: at() }),
		fact: (path: string, key: string, value: Value) => fact({ type: "fact", life, path, key, value, at: at() }),
		identity: (path: string, identity: VisitIdentity) => fact({ type: "identity", life, path, identity }),
		// Transcripts stay out of the database (they hold every tool result): see docs/distributed.md. What
		// the model answered, and digests of what it was asked, are kept, so the run can become a cassette;
		// and the tool results that were errors, with their words, so the report says what went wrong.
		transcript: (path: string, _subagent: string, messages: readonly unknown[]) => {
			fact({ type: "turns", life, path, turns: turnsOf(messages) });
			for (const t of troublesIn(messages)) fact({ type: "tool_trouble", life, path, ...t });
		},
		onEvent(event) {
			if (TRACE_ONLY_EVENTS.has(event.type) || (options.keep && !options.keep(event))) return;
			events.push({ ...event, life, at: at(), worker: `${hostname()}:${process.pid}` });
			schedule();
		},
		async drain() {
			if (scheduled) flush();
			await writing;
			if (facts.length || events.length) {
				flush();
				await writing;
			}
			if (failed) throw new Error(failed);
		},
		failure: () => failed,
	};
}

/**
 * A replay that the run's coordinator grows as items end elsewhere: the journal's earlier facts (read as a
 * resume reads them), then every visit end an item's worker recorded, failures included (they ended in
 * this life, so the walk must see them as the item's worker did).
 */
export function liveReplay(entries: readonly JournalEntry[]): Replay & { add(entries: readonly JournalEntry[]): void } {
	const base = journalState(entries).replay;
	const ended = new Map<string, EndedVisit>();
	const mapItems = new Map<string, Value[]>();
	return {
		ended: (p) => ended.get(p) ?? base.ended(p),
		mapItems: (p) => mapItems.get(p) ?? base.mapItems(p),
		handoff: (p) => (ended.has(p) ? undefined : base.handoff?.(p)),
		fact: (p, key) => base.fact?.(p, key),
		add(more) {
			for (const e of more) {
				if (e.type === "visit_end") ended.set(e.path, e.ended);
				else if (e.type === "map_items") mapItems.set(e.path, e.items);
			}
		},
	};
}
