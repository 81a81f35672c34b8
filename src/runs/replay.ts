/**
 * Reading a journal back for a resume. Every visit that ended with a value survives and is never run
 * again; the failure chain of a failed run (the failed visit and the blocks it travelled through) is
 * dropped so it runs again with a fresh retry budget; a visit cut mid-turn runs again from its start, and
 * is "in doubt" when it had already called a tool that writes.
 */
import type { EndedVisit, Replay, TreeSnapshot } from "../engine/index.ts";
import { WRITING_TOOLS } from "../agents/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import type { Value } from "../language/types/index.ts";
import { FAILURE_KIND_TABLE, FAILURE_KINDS, type FailureKind } from "../runtime/index.ts";
import type { JournalEntry } from "./journal.ts";

/** Failures the flow itself decided (the kinds `final` in the failure table): a resume would decide the same. */
export const FINAL_KINDS: ReadonlySet<FailureKind> = new Set(FAILURE_KINDS.filter((k) => FAILURE_KIND_TABLE[k].final));

/**
 * Whether a failed run ended by the flow's own decision, so a resume would decide the same: its kind is
 * final, or it is a `child` failure whose innermost visit (where it started) failed with a final kind. The
 * CLI offers a resume only when this is false, and the resume refuses only when it is true: one rule.
 */
export function decidedByFlow(errorKind: FailureKind | undefined, causeKind: FailureKind | undefined): boolean {
	if (!errorKind) return false;
	return (
		FAILURE_KIND_TABLE[errorKind].final || (errorKind === "child" && !!causeKind && FAILURE_KIND_TABLE[causeKind].final)
	);
}

/** What a journal says about a run. */
export interface JournalState {
	replay: Replay;
	lives: number;
	/** How the last life ended, when it did. */
	end?: Extract<JournalEntry, { type: "run_end" }>;
	/** The error kind of the visit the last life's failure started at. */
	causeKind?: FailureKind;
	/** Visits cut mid-turn after calling a tool that writes. */
	inDoubt: string[];
	/** Visits cut mid-turn. */
	cut: string[];
	/** Every visit that ended, once each (for proofs and summaries). */
	endedCount: Map<string, number>;
	spent: { tokens: number; cost: number; turns: number };
}

/** Reads the state of a run from its journal entries. */
export function journalState(entries: readonly JournalEntry[]): JournalState {
	const ended = new Map<string, EndedVisit>();
	const endedCount = new Map<string, number>();
	const mapItems = new Map<string, Value[]>();
	const handoffs = new Map<string, Value>();
	const facts = new Map<string, Value>();
	const trees = new Map<string, TreeSnapshot>();
	const started = new Map<string, number>();
	const writes = new Map<string, boolean>();
	let lives = 0;
	let end: JournalState["end"];
	const spent = { tokens: 0, cost: 0, turns: 0 };
	for (const e of entries) {
		switch (e.type) {
			case "life_start":
				lives = Math.max(lives, e.life);
				end = undefined;
				break;
			case "visit_start":
				started.set(e.path, e.life);
				writes.delete(e.path);
				break;
			case "tool_call":
				if (WRITING_TOOLS.has(e.tool)) writes.set(e.path, true);
				break;
			case "handoff":
				handoffs.set(e.path, e.doc);
				break;
			case "fact":
				facts.set(factKey(e.path, e.key), e.value);
				break;
			case "tree":
				// The run's own start is its first life's; a visit's is the one its last start recorded.
				if (e.path !== "" || !trees.has("")) trees.set(e.path, { tree: e.tree, ...(e.head ? { head: e.head } : {}) });
				break;
			case "visit_end":
				handoffs.delete(e.path);
				ended.set(e.path, e.ended);
				endedCount.set(e.path, (endedCount.get(e.path) ?? 0) + 1);
				started.delete(e.path);
				if (LANGUAGE.modelTurns.has(e.kind)) {
					spent.tokens += e.usage.totalTokens;
					spent.cost += e.usage.cost;
					spent.turns += e.usage.requests > 0 ? 1 : 0;
				}
				break;
			case "map_items":
				mapItems.set(e.path, e.items);
				break;
			case "run_end":
				end = e;
				break;
		}
	}
	// A failure the flow did not absorb runs again, with a fresh retry budget, and so does every block it
	// travelled up through (they ended failed too); a failure stopped by `on-fail: continue` survives.
	const causeKind = end?.failedAt ? ended.get(end.failedAt)?.error?.kind : undefined;
	for (const [path, e] of [...ended]) if (!e.ok && !e.absorbed) ended.delete(path);
	const cut = [...started.keys()].filter((p) => !ended.has(p));
	return {
		// A cut visit's last document (a checkpoint, or a partial finish) is where it goes on from.
		replay: {
			ended: (p) => ended.get(p),
			mapItems: (p) => mapItems.get(p),
			handoff: (p) => (ended.has(p) ? undefined : handoffs.get(p)),
			tree: (p) => trees.get(p),
			fact: (p, key) => facts.get(factKey(p, key)),
		},
		lives,
		...(end ? { end } : {}),
		...(causeKind ? { causeKind } : {}),
		inDoubt: cut.filter((p) => writes.get(p)),
		cut,
		endedCount,
		spent,
	};
}

/** A kind's fact about a visit, keyed by both (a visit path holds no NUL). */
function factKey(path: string, key: string): string {
	return `${path}\0${key}`;
}
