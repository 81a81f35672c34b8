/**
 * The one failure type of a run: a turn's result, a visit's record, a journal line, a port's answer and a
 * run's result all say why something failed as a {@link Failure}, a kind from one closed set plus words.
 * Each kind's behaviour lives in one table, so a new kind is one row the compiler asks for in full, and a
 * `switch` over kinds ends in `assertNever` (the report's wording does), so it fails to compile until the
 * new kind is worded. (Check-time faults are another thing: `src/faults`.)
 *
 *   { kind: "timeout", message: "timed out after 2m" }
 *   FAILURE_KIND_TABLE.timeout.retry    → true (an agent node with `retry:` tries again)
 *   readFailureKind("gone-away")        → "unknown" (a kind this version does not know)
 */

/** How a run treats one kind of failure. */
export interface FailureKindSpec {
	/** An agent turn that failed this way is tried again while its node's `retry:` allows. */
	readonly retry: boolean;
	/**
	 * A stop rather than a fault: it passes through blocks as it is, `on-fail: continue` never absorbs it,
	 * and the journal does not keep it as the visit's end (a resume runs the visit again).
	 */
	readonly stop: boolean;
	/** Decided by the flow itself: a resume would decide the same, so it refuses to run again. */
	readonly final: boolean;
	/** A retry in a fresh session: the old one may still be busy with the turn that ran out of time. */
	readonly freshSubagent: boolean;
}

const plain = { retry: false, stop: false, final: false, freshSubagent: false } as const;

/**
 * Every kind of failure and how it is treated, in the order docs list them. A kind is never removed or
 * renamed: journals of older runs hold it (see {@link readFailureKind}).
 */
export const FAILURE_KIND_TABLE = {
	/** The model's provider failed past the transport's own retries, or a session could not start. */
	provider: { ...plain, retry: true },
	/** A turn or a check ran past its time. */
	timeout: { ...plain, retry: true, freshSubagent: true },
	/** The caller's signal cut a turn (the library's plain abort). */
	aborted: plain,
	/** A person stopped the run. */
	stopped: { ...plain, stop: true },
	/** A failing sibling cut the work (fail-fast). */
	cancelled: { ...plain, stop: true },
	/** The answer did not fit: no accepted `submit` or `verdict`, or a required tool was not called. */
	schema: { ...plain, retry: true },
	/** An expression (a condition, a read, a list) could not be evaluated. */
	condition: { ...plain, final: true },
	/** A block failed because a visit inside it did; the message names that visit. */
	child: plain,
	/** A question had nobody to answer it and no default. */
	nobody: plain,
	/** A port could not do its work: git, a check script, the journal, or an internal error. */
	unavailable: plain,
	/** A commit's message was empty. */
	"empty-message": { ...plain, final: true },
	/** A loop ran out of iterations before its condition held. */
	unconverged: { ...plain, final: true },
	/** A list was longer than the node allows. */
	"too-many": { ...plain, final: true },
	/** The run's budget is spent. */
	budget: { ...plain, stop: true },
	/** A turn showed no sign of life for too long. */
	idle: { ...plain, retry: true, freshSubagent: true },
	/** The agent finished `blocked`. */
	blocked: { ...plain, stop: true },
	/** The agent was still `partial` after every continuation allowed. */
	unfinished: plain,
	/** Reserved: no part of this version fails with it; a flow naming it in a condition still checks. */
	refused: plain,
	/** Reserved, as `refused`. */
	model: plain,
	/** Reserved, as `refused`. */
	unscripted: plain,
	/** A kind an older version wrote that this one does not know (see {@link readFailureKind}). */
	unknown: plain,
} as const satisfies Record<string, FailureKindSpec>;

/** One kind of failure: a key of {@link FAILURE_KIND_TABLE}. */
export type FailureKind = keyof typeof FAILURE_KIND_TABLE;

/** Every kind, in the table's order: the enum a flow's `x.error.kind` is checked against. */
export const FAILURE_KINDS = Object.keys(FAILURE_KIND_TABLE) as readonly FailureKind[];

/**
 * Why something failed: decided from signals, stop reasons and outcomes, never parsed from words. `K`
 * narrows the kinds a port may answer with (a check fails only `unavailable`, `timeout` or `stopped`).
 */
export interface Failure<K extends FailureKind = FailureKind> {
	kind: K;
	message: string;
}

/** A failure of `kind` saying `message`. */
export function failure<K extends FailureKind>(kind: K, message: string): Failure<K> {
	return { kind, message };
}

/** How `kind` is treated. */
export function kindSpec(kind: FailureKind): FailureKindSpec {
	return FAILURE_KIND_TABLE[kind];
}

/** Whether `text` is one of {@link FAILURE_KINDS}. */
export function isFailureKind(text: unknown): text is FailureKind {
	return typeof text === "string" && Object.hasOwn(FAILURE_KIND_TABLE, text);
}

/**
 * A kind as a journal, a result file or an event wrote it, read onto the closed set. Every kind a
 * version of pi-flows has written is in the set (kinds are added, never renamed or removed), so a known
 * kind reads as it is; anything else (a newer version's kind after a downgrade, a hand-edited or foreign
 * file) reads as `unknown`, which is neither retried, nor a stop, nor final. Never throws.
 */
export function readFailureKind(text: unknown): FailureKind {
	return isFailureKind(text) ? text : "unknown";
}

/**
 * A `{ kind, message }` as a journal wrote it, read as a {@link Failure} (the kind through
 * {@link readFailureKind}); a bare string reads as an `unknown` failure saying it. Undefined for none.
 */
export function readFailure(raw: unknown): Failure | undefined {
	if (raw === undefined || raw === null) return undefined;
	if (typeof raw !== "object") return { kind: "unknown", message: String(raw) };
	const r = raw as { kind?: unknown; message?: unknown };
	return {
		kind: readFailureKind(r.kind),
		message: typeof r.message === "string" ? r.message : String(r.message ?? ""),
	};
}

/** `kind: message`, as visit lines and run errors print a failure. */
export function failureText(f: Failure): string {
	return `${f.kind}: ${f.message}`;
}

/** For a `switch` over kinds (or any closed union): a case left out is a compile error here. */
export function assertNever(value: never): never {
	throw new Error(`unexpected value: ${String(value)}`);
}
