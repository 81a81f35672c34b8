/**
 * What the blocks share at run time (`kinds/<block>/run.ts` for choice, parallel, map and loop): a body
 * visit run in its own frame and memory scope, closed when the visit ends; how a block of branches is
 * joined, cut (fail-fast), settled and named after its first failure; and the copies its branches may
 * work in, landed and kept.
 */
import type { Join, Located } from "../language/ast.ts";
import type { Value } from "../language/types/index.ts";
import type { VisitEnd } from "./kind.ts";
import type { BlockCopies } from "./copies.ts";
import type { LandResult } from "./ports/index.ts";
import type { Frame, MemoryScope, VisitRecord } from "./frames.ts";
import { childFailure, isStop, runSequence, type SequenceEnd } from "./walk.ts";
import { ELSEWHERE, type World } from "./world.ts";

/** What a block whose branches run together says about joining and cutting them (a parallel, a map). */
export interface BlockOfBranches {
	join?: Located<Join>;
	failFast?: Located<boolean>;
	onFail?: Located<"continue">;
}
/** A fresh memory scope for one body visit. */
export function scope(id: string, instance: string): MemoryScope {
	return { id, instance, closers: [], values: new Map() };
}

/** Closes a memory scope: every session opened in it, best effort. */
export async function closeScope(m: MemoryScope): Promise<void> {
	for (const close of m.closers.splice(0)) {
		try {
			await close();
		} catch {
			// Closing is best effort: a session that fails to dispose must not keep the others open.
		}
	}
}

/** A branch or item a focused run leaves to whoever runs it: never started here, and no cut for its siblings. */
export const ELSEWHERE_END: SequenceEnd = { ok: false, failure: ELSEWHERE, last: ELSEWHERE };

/** Runs a body in a fresh frame with its own memory scope, closing the scope whatever happens. */
export function body(
	world: World,
	nodes: Parameters<typeof runSequence>[1],
	frame: Frame,
	signal: AbortSignal,
): Promise<SequenceEnd> {
	const memory = frame.block?.memory;
	const ran = runSequence(world, nodes, frame, signal);
	// Most bodies open nothing their scope keeps: nothing is chained for them (every map item runs one).
	if (!memory) return ran;
	return ran.then(
		(end) => (memory.closers.length ? closeScope(memory).then(() => end) : end),
		async (error: unknown) => {
			if (memory.closers.length) await closeScope(memory);
			throw error;
		},
	);
}

/** Whether enough branches succeeded for the block's `join`. */
export function joined(node: BlockOfBranches, ends: SequenceEnd[]): boolean {
	const okCount = ends.filter((e) => e.ok).length;
	const join = node.join?.value ?? { kind: "all" };
	if (join.kind === "all") return okCount === ends.length;
	if (join.kind === "any") return okCount >= 1 || ends.length === 0;
	return okCount >= join.count;
}

/** The block's failure: the first failing branch in order (a cancellation only when every failure was one). */
export function blockFailure(ends: SequenceEnd[], visit: string): VisitEnd {
	const failed = ends.filter((e) => !e.ok);
	const first = failed.find((e) => e.failure && e.failure.error?.kind !== "cancelled") ?? failed[0];
	return {
		record: childFailure(first ?? { ok: false }, visit),
		...(first?.failedAt ? { failedAt: first.failedAt } : {}),
	};
}

/**
 * How a block ends: ok when its join is met; otherwise failed, naming the first failing branch, unless
 * `on-fail: continue` keeps every entry (failed ones as `{ ok: false, error }`) and ends it ok. A stop is
 * never absorbed.
 */
export function settle(node: BlockOfBranches, ends: SequenceEnd[], visit: string, output: Value): VisitEnd {
	if (joined(node, ends)) return { record: { ok: true, output } };
	const failure = blockFailure(ends, visit);
	if (node.onFail && !isStop(failure.record)) return { record: { ok: true, output } };
	return { ...failure, record: { ...failure.record, output } };
}

/** Branches that run together share a fail-fast cut: the first failure aborts the rest (kind `cancelled`). */
export function cutter(
	node: BlockOfBranches,
	signal: AbortSignal,
): { signal: AbortSignal; failed: () => void; done: () => void } {
	const cut = new AbortController();
	const onStop = () => cut.abort(signal.reason);
	signal.addEventListener("abort", onStop, { once: true });
	return {
		signal: cut.signal,
		failed: () => {
			if (node.failFast?.value === true) cut.abort(new Error("fail-fast"));
		},
		done: () => signal.removeEventListener("abort", onStop),
	};
}

/**
 * A block's outcome once its copies are released: each entry whose copy kept its branch (work that did
 * not land: a refused patch, a stopped run) says `kept: <branch>`, and a failure says where the work is.
 */
export function withKept(out: VisitEnd, kept: (string | undefined)[] | undefined, names?: string[]): VisitEnd {
	const branches = (kept ?? []).filter((k): k is string => k !== undefined);
	if (!kept || branches.length === 0) return out;
	const mark = (entry: Value, k: string | undefined): Value =>
		k && entry && typeof entry === "object" && !Array.isArray(entry)
			? { ...(entry as Record<string, Value>), kept: k }
			: entry;
	const o = out.record.output;
	let output = o;
	if (Array.isArray(o)) output = o.map((e, i) => mark(e, kept[i]));
	else if (names && o && typeof o === "object")
		output = Object.fromEntries(
			Object.entries(o as Record<string, Value>).map(([n, e]) => [n, mark(e, kept[names.indexOf(n)])]),
		);
	const where = `work that did not land is kept on ${branches.length === 1 ? "branch" : "branches"} ${branches.join(", ")} (\`git log -p <branch>\` shows it)`;
	const error = out.record.error
		? { ...out.record.error, message: `${out.record.error.message}; ${where}` }
		: undefined;
	return {
		...out,
		record: { ...out.record, ...(output !== undefined ? { output } : {}), ...(error ? { error } : {}) },
	};
}

/** Opens branch `i`'s copy and points its frame there; a copy that cannot be made fails the branch. */
export async function inCopy(
	copies: BlockCopies,
	i: number,
	label: string,
	inner: Frame,
): Promise<SequenceEnd | undefined> {
	const opened = await copies.open(i, label);
	if (opened.ok) {
		inner.cwd = opened.dir;
		return undefined;
	}
	const failure: VisitRecord = { ok: false, error: { kind: opened.kind, message: opened.message } };
	return { ok: false, failure, last: failure, failedAt: inner.prefix };
}

/** An entry with `landed`/`refused` when the block works in copies. */
export function withLanding(entry: Value, copies: BlockCopies | undefined, result: LandResult | undefined): Value {
	if (!copies) return entry;
	return {
		...(entry as Record<string, Value>),
		landed: result?.landed ?? false,
		...(result?.refused ? { refused: result.refused } : {}),
	};
}
