/**
 * What a run tells its journal, and what a resumed run reads back. The walk calls these at fixed points
 * (a visit starts, ends, freezes a list, carries a value, asks a question, calls a tool) and never
 * depends on where they go: no journal at all, a file, or an array in a test.
 */
import type { Failure } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import type { Value } from "../language/types/index.ts";
import type { ReuseNote } from "../runtime/index.ts";
import type { VisitIdentity } from "../identity/index.ts";
import type { AskAnswer, AskCard, TreeSnapshot } from "./ports/index.ts";
import type { Obligation, VerdictEffect } from "./ledger.ts";
import type { VisitRecord } from "./frames.ts";

/** A visit's end as the journal keeps it: JSON only (a ledger travels as its obligations). */
export interface EndedVisit {
	ok: boolean;
	output?: Value;
	/** Written as `{ kind, message }`; read back through `readFailure`, so an older kind still reads. */
	error?: Failure;
	handoff?: Value;
	/** A block's ledger at its end. */
	obligations?: Obligation[];
	/** What a verdict turn did to its ledger, re-applied when the visit is replayed. */
	verdict?: { ledger: string; effect: VerdictEffect };
	/** A failure `on-fail: continue` stopped at this node: the flow went on, so it survives a resume. */
	absorbed?: boolean;
	/** A run with `--reuse`: taken from the earlier run, or why it ran (docs/runs.md, "Reuse"). */
	reuse?: ReuseNote;
	/** What the visit changed in the tree, so a later run can write it again instead of running it. */
	effect?: TreeEffect;
	/**
	 * Milliseconds the visit was held waiting for a person (a `/step` pause), inside its start and end:
	 * its time is the span less this. Absent: never held.
	 */
	held?: number;
}

/**
 * A visit's change to the tree: the git trees it started from and left (its own tools, or a change it wrote
 * again), the files that differ, and the patch between them (absent past `MAX_RECORDED_PATCH`).
 */
export interface TreeEffect {
	before: string;
	after: string;
	files: string[];
	patch?: string;
}

/** Where a run's facts go. Writes are the journal's business; a failing write is reported, not thrown. */
export interface RunRecorder {
	visitStart(path: string, node: string, kind: string): void;
	/** Must be durable when it returns: a resume trusts every ended visit it finds. */
	visitEnd(path: string, node: string, kind: string, ended: EndedVisit, usage: Usage): void;
	/** A map's items, read once: a resume runs the same list (the journal's `map_items`). */
	mapItems(path: string, items: readonly Value[]): void;
	carried(iteration: string, value: Value): void;
	asked(path: string, card: AskCard, answer: AskAnswer): void;
	/** A tool call of a turn, so a cut turn that may have written is known to be in doubt. */
	toolCall(path: string, tool: string): void;
	/** A turn's messages, kept per subagent. */
	transcript(path: string, subagent: string, messages: readonly unknown[]): void;
	/**
	 * A handoff document a turn just wrote (`checkpoint` or `finish`, the whole document), kept before the
	 * tool returns so a crash mid-turn leaves it on disk. Optional: a recorder that keeps nothing may leave it out.
	 */
	handoff?(path: string, doc: Value): void;
	/** The visit's identity, computed as it starts (every visit; `src/identity`). Optional, as `handoff`. */
	identity?(path: string, identity: VisitIdentity): void;
	/**
	 * The tree a visit that may write starts from (`path` "": the run's start), durable when it returns, so
	 * a rerun of the visit cut in doubt starts from it and a commit takes only what the run changed
	 * (run/start-tree.ts). Optional: a recorder that keeps nothing may leave it out.
	 */
	tree?(path: string, snapshot: TreeSnapshot): void;
	/**
	 * A fact a kind keeps about one visit (`key` is the kind's own name for it, a `wait`'s `deadline`),
	 * durable when it returns, so a resume of the visit cut midway reads it back (`Replay.fact`) instead of
	 * starting over. A kind's facts need no change here: the kind names them in its own folder.
	 */
	fact?(path: string, key: string, value: Value): void;
}

/** What a resumed run reads from the journal of its earlier lives. */
export interface Replay {
	/** The visit's end, when it ended in an earlier life. */
	ended(path: string): EndedVisit | undefined;
	/** A map's items as its first life read them. */
	mapItems(path: string): Value[] | undefined;
	/**
	 * The last handoff document a visit cut mid-turn had journaled (see `RunRecorder.handoff`), so the
	 * visit goes on from it instead of from its start. Optional: a replay without it starts over.
	 */
	handoff?(path: string): Value | undefined;
	/** The tree a visit (or, for "", the run) recorded at its start in an earlier life. */
	tree?(path: string): TreeSnapshot | undefined;
	/** The last value a visit recorded under `key` in an earlier life (`RunRecorder.fact`). */
	fact?(path: string, key: string): Value | undefined;
}

/** A recorder that keeps nothing. */
export const NO_RECORD: RunRecorder = {
	visitStart: () => {},
	visitEnd: () => {},
	mapItems: () => {},
	carried: () => {},
	asked: () => {},
	toolCall: () => {},
	transcript: () => {},
};

/** A record as the journal keeps it: a fresh object, which the caller may add to. */
export function endedOf(record: VisitRecord): EndedVisit {
	// Field by field, in the journal's order: every visit's end is made here, and conditional spreads are garbage.
	const ended: EndedVisit = { ok: record.ok };
	if (record.output !== undefined) ended.output = record.output;
	if (record.error) ended.error = { ...record.error };
	if (record.handoff !== undefined) ended.handoff = record.handoff;
	if (record.ledger) ended.obligations = record.ledger.all();
	if (record.verdict) ended.verdict = record.verdict;
	if (record.reuse) ended.reuse = record.reuse;
	if (record.effect) ended.effect = record.effect;
	return ended;
}
