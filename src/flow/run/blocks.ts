/**
 * Blocks at run time. A choice runs the first case whose condition holds; a parallel starts every branch
 * and joins them; a map runs its body per item of a list frozen when it starts, `concurrency` at a time;
 * a loop repeats its body until its condition holds, `give-up` holds, or `max` is reached. Each body
 * visit gets its own frame and memory scope, closed when the visit ends.
 */
import { mapConcurrent } from "../../runtime/index.ts";
import type { ChoiceNode, LoopNode, MapNode, ParallelNode } from "../ast.ts";
import type { Value } from "../types/index.ts";
import { stopKind } from "./agent.ts";
import { evaluate } from "./evaluate.ts";
import type { VisitEnd } from "./kinds.ts";
import { createLedger, type Ledger } from "./ledger.ts";
import { valueAt } from "./turn.ts";
import { type BlockCopies, blockCopies } from "./copies.ts";
import type { LandResult } from "./ports/index.ts";
import {
	childFrame,
	entryValue,
	type Frame,
	frameCwd,
	lookupIn,
	type MemoryScope,
	type VisitRecord,
} from "./values.ts";
import { childFailure, isStop, runSequence, type SequenceEnd } from "./walk.ts";
import { ELSEWHERE, focusOf, type World } from "./world.ts";

function scope(id: string, instance: string): MemoryScope {
	return { id, instance, closers: [], values: new Map() };
}

async function closeScope(m: MemoryScope): Promise<void> {
	for (const close of m.closers.splice(0)) {
		try {
			await close();
		} catch {
			// Closing is best effort: a session that fails to dispose must not keep the others open.
		}
	}
}

/** A branch or item a focused run leaves to whoever runs it: never started here, and no cut for its siblings. */
const ELSEWHERE_END: SequenceEnd = { ok: false, failure: ELSEWHERE, last: ELSEWHERE };

/** Runs a body in a fresh frame with its own memory scope, closing the scope whatever happens. */
async function body(
	world: World,
	nodes: Parameters<typeof runSequence>[1],
	frame: Frame,
	signal: AbortSignal,
): Promise<SequenceEnd> {
	try {
		return await runSequence(world, nodes, frame, signal);
	} finally {
		if (frame.block) await closeScope(frame.block.memory);
	}
}

/** A choice: the first case that holds runs; a condition that cannot be evaluated fails the node `condition`. */
export async function runChoice(
	world: World,
	node: ChoiceNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const lookup = lookupIn(frame, world);
	let chosen: { name: string; nodes: ChoiceNode["otherwise"] } | undefined;
	for (const [i, c] of node.cases.entries()) {
		const v = evaluate(c.when.expr, lookup);
		if (!v.ok)
			return {
				record: { ok: false, error: { kind: "condition", message: `case ${c.name?.value ?? i + 1}: ${v.reason}` } },
			};
		if (v.value === true) {
			chosen = { name: c.name?.value ?? String(i + 1), nodes: c.body };
			break;
		}
	}
	chosen ??= { name: "default", nodes: node.otherwise };
	if (chosen.nodes.length === 0) return { record: { ok: true, output: { case: chosen.name } } };
	const inner = childFrame(frame, visit, { id: node.id.value, kind: "choice", memory: scope(node.id.value, visit) });
	const end = await body(world, chosen.nodes, inner, signal);
	if (!end.ok) return { record: childFailure(end, visit), ...(end.failedAt ? { failedAt: end.failedAt } : {}) };
	const output: Record<string, Value> = { case: chosen.name };
	if (end.last?.output !== undefined) output.output = end.last.output;
	return { record: { ok: true, output } };
}

/** Whether enough branches succeeded for the block's `join`. */
function joined(node: ParallelNode | MapNode, ends: SequenceEnd[]): boolean {
	const okCount = ends.filter((e) => e.ok).length;
	const join = node.join?.value ?? { kind: "all" };
	if (join.kind === "all") return okCount === ends.length;
	if (join.kind === "any") return okCount >= 1 || ends.length === 0;
	return okCount >= join.count;
}

/** The block's failure: the first failing branch in order (a cancellation only when every failure was one). */
function blockFailure(ends: SequenceEnd[], visit: string): VisitEnd {
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
function settle(node: ParallelNode | MapNode, ends: SequenceEnd[], visit: string, output: Value): VisitEnd {
	if (joined(node, ends)) return { record: { ok: true, output } };
	const failure = blockFailure(ends, visit);
	if (node.onFail && !isStop(failure.record)) return { record: { ok: true, output } };
	return { ...failure, record: { ...failure.record, output } };
}

/** Branches that run together share a fail-fast cut: the first failure aborts the rest (kind `cancelled`). */
function cutter(node: ParallelNode | MapNode, signal: AbortSignal) {
	const cut = new AbortController();
	const onStop = () => cut.abort(signal.reason);
	signal.addEventListener("abort", onStop, { once: true });
	return {
		signal: cut.signal,
		failed: () => node.failFast?.value === true && cut.abort(new Error("fail-fast")),
		done: () => signal.removeEventListener("abort", onStop),
	};
}

/** A parallel: every branch at once; the output keys each branch's end by name. */
export async function runParallel(
	world: World,
	node: ParallelNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const cut = cutter(node, signal);
	const copies = node.copies?.value ? blockCopies(world, frameCwd(frame, world)) : undefined;
	let released = false;
	try {
		const ends = await Promise.all(
			node.branches.map(async (b, i) => {
				if (focusOf(`${visit}/${b.name.value}`, world.options.focus) === "outside") return ELSEWHERE_END;
				const inner = childFrame(frame, `${visit}/${b.name.value}`, {
					id: node.id.value,
					kind: "parallel",
					memory: scope(node.id.value, `${visit}/${b.name.value}`),
				});
				const failedCopy = await inCopy(copies, i, `${node.id.value}-${b.name.value}`, inner);
				if (failedCopy) return failedCopy;
				const end = await body(world, b.body, inner, cut.signal);
				if (!end.ok) cut.failed();
				return end;
			}),
		);
		const landed = copies && !world.options.signal?.aborted ? await copies.land(ends.length) : undefined;
		const output: Record<string, Value> = {};
		node.branches.forEach((b, i) => {
			output[b.name.value] = withLanding(
				ends[i].last ? entryValue(ends[i].last as VisitRecord) : { ok: ends[i].ok },
				copies,
				landed?.[i],
			);
		});
		released = true;
		return await withKept(
			settle(node, ends, visit, output),
			await copies?.release(),
			node.branches.map((b) => b.name.value),
		);
	} finally {
		cut.done();
		if (!released) await copies?.release();
	}
}

/**
 * A block's outcome once its copies are released: each entry whose copy kept its branch (work that did
 * not land: a refused patch, a stopped run) says `kept: <branch>`, and a failure says where the work is.
 */
function withKept(out: VisitEnd, kept: (string | undefined)[] | undefined, names?: string[]): VisitEnd {
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
async function inCopy(
	copies: BlockCopies | undefined,
	i: number,
	label: string,
	inner: Frame,
): Promise<SequenceEnd | undefined> {
	if (!copies) return undefined;
	const opened = await copies.open(i, label);
	if (opened.ok) {
		inner.cwd = opened.dir;
		return undefined;
	}
	const failure: VisitRecord = { ok: false, error: { kind: opened.kind, message: opened.message } };
	return { ok: false, failure, last: failure, failedAt: inner.prefix };
}

/** An entry with `landed`/`refused` when the block works in copies. */
function withLanding(entry: Value, copies: BlockCopies | undefined, result: LandResult | undefined): Value {
	if (!copies) return entry;
	return {
		...(entry as Record<string, Value>),
		landed: result?.landed ?? false,
		...(result?.refused ? { refused: result.refused } : {}),
	};
}

/** A map: the list is read once and frozen; `max` is enforced before any item runs. */
export async function runMap(
	world: World,
	node: MapNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	let items: Value[];
	const frozen = world.options.replay?.frozen(visit);
	if (frozen) items = frozen;
	else if (node.items) items = node.items.map((i) => i.value);
	else {
		const v = node.from ? valueAt(node.from, frame, world) : { ok: false as const, reason: "no list" };
		if (!v.ok)
			return {
				record: { ok: false, error: { kind: "condition", message: `\`map-from\` cannot be read: ${v.reason}` } },
			};
		if (!Array.isArray(v.value))
			return { record: { ok: false, error: { kind: "condition", message: "`map-from` did not read a list" } } };
		items = [...v.value];
	}
	if (node.max && items.length > node.max.value) {
		return {
			record: {
				ok: false,
				error: {
					kind: "too-many",
					message: `the list has ${items.length} items, more than \`max: ${node.max.value}\``,
				},
			},
		};
	}
	if (!frozen) world.recorder.frozen(visit, items);
	const cut = cutter(node, signal);
	const copies = node.copies?.value ? blockCopies(world, frameCwd(frame, world)) : undefined;
	// Items go where the backend places them, unless they work in copies (worktrees are this machine's) or
	// this map only holds the item a focused run is about (that one runs here).
	const placement = copies || focusOf(visit, world.options.focus) !== "inside" ? undefined : world.options.items;
	let released = false;
	try {
		const ledgers: (Ledger | undefined)[] = [];
		const ends = await mapConcurrent(items, node.concurrency?.value ?? 1, async (item, i) => {
			if (focusOf(`${visit}[${i + 1}]`, world.options.focus) === "outside") return ELSEWHERE_END;
			const ledger = node.ledger ? createLedger() : undefined;
			ledgers[i] = ledger;
			const inner = childFrame(frame, `${visit}[${i + 1}]`, {
				id: node.id.value,
				kind: "map",
				item,
				memory: scope(node.id.value, `${visit}[${i + 1}]`),
				...(ledger ? { ledger } : {}),
			});
			if (cut.signal.aborted) {
				// Never started: its entry still says why (a fail-fast cut, or the run's stop), like a cut item's.
				const why = stopKind(world, cut.signal);
				const failure: VisitRecord = { ok: false, error: { kind: why.kind, message: `not started: ${why.message}` } };
				return { ok: false, failure, last: failure, failedAt: `${visit}[${i + 1}]` } as SequenceEnd;
			}
			const failedCopy = await inCopy(copies, i, `${node.id.value}-${i + 1}`, inner);
			if (failedCopy) return failedCopy;
			const placed = placement ? await placeItem(placement, visit, `${visit}[${i + 1}]`, cut.signal) : undefined;
			if (placed) {
				cut.failed();
				return placed;
			}
			const end = await body(world, node.body, inner, cut.signal);
			if (!end.ok) cut.failed();
			return end;
		});
		const landed = copies && !world.options.signal?.aborted ? await copies.land(ends.length) : undefined;
		// Each entry is the body's last node as it ended (as a parallel's are): a failure kept by `on-fail:
		// continue` still reads `ok: false` with its error, though it counts as a success for the join.
		const output: Value[] = ends.map((e, i) =>
			withLanding({ item: items[i], ...(e.last ? (entryValue(e.last) as object) : { ok: e.ok }) }, copies, landed?.[i]),
		);
		released = true;
		return await withKept(settle(node, ends, visit, output), await copies?.release());
	} finally {
		cut.done();
		if (!released) await copies?.release();
	}
}

/**
 * Runs an item where the backend places it. Resolves to nothing once it ended there (the body that follows
 * replays it), or to the item's failure when the backend could not run it (an unreachable database).
 */
async function placeItem(
	placement: NonNullable<World["options"]["items"]>,
	map: string,
	item: string,
	signal: AbortSignal,
): Promise<SequenceEnd | undefined> {
	try {
		await placement.place(map, item, signal);
		return undefined;
	} catch (error) {
		if (signal.aborted) return undefined;
		const failure: VisitRecord = {
			ok: false,
			error: { kind: "unavailable", message: `the item could not be run by the backend: ${(error as Error).message}` },
		};
		return { ok: false, failure, last: failure, failedAt: item };
	}
}

/** A loop: after each iteration read `until`, then `give-up`, then the cap; `carry.next` only when going on. */
export async function runLoop(
	world: World,
	node: LoopNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const ledger = node.ledger ? createLedger() : undefined;
	const max = node.max?.value ?? 1;
	let previous: Map<string, VisitRecord> | undefined;
	let carry: Value | undefined;
	if (node.carry) {
		const first = valueAt(node.carry.first, frame, world);
		if (!first.ok)
			return {
				record: { ok: false, error: { kind: "condition", message: `\`carry.first\` cannot be read: ${first.reason}` } },
			};
		carry = first.value;
	}
	const memory = scope(node.id.value, visit);
	try {
		for (let i = 1; i <= max; i++) {
			const iteration = `${visit}#${i}`;
			const inner: Frame = {
				parent: frame,
				records: new Map(),
				prefix: iteration,
				block: {
					id: node.id.value,
					kind: "loop",
					memory,
					...(previous ? { previous } : {}),
					...(carry !== undefined ? { carry } : {}),
					...(ledger ? { ledger } : {}),
				},
			};
			const end = await runSequence(world, node.body, inner, signal);
			const last: Record<string, Value> = {};
			for (const n of node.body) {
				const r = inner.records.get(n.id.value);
				if (r) last[n.id.value] = entryValue(r);
			}
			const result = (converged: boolean, stop: string): Value => ({ converged, stop, iterations: i, last });
			if (!end.ok)
				return {
					record: { ...childFailure(end, iteration), ...(ledger ? { ledger } : {}) },
					...(end.failedAt ? { failedAt: end.failedAt } : {}),
				};
			const lookup = lookupIn(inner, world);
			const until = node.until ? evaluate(node.until.expr, lookup) : { ok: true as const, value: false };
			if (!until.ok)
				return {
					record: { ok: false, error: { kind: "condition", message: `\`loop\` cannot be evaluated: ${until.reason}` } },
				};
			if (until.value === true)
				return { record: { ok: true, output: result(true, "until"), ...(ledger ? { ledger } : {}) } };
			const giveUp = node.giveUp ? evaluate(node.giveUp.expr, lookup) : { ok: true as const, value: false };
			if (!giveUp.ok)
				return {
					record: {
						ok: false,
						error: { kind: "condition", message: `\`give-up\` cannot be evaluated: ${giveUp.reason}` },
					},
				};
			const stop = giveUp.value === true ? "give-up" : i === max ? "cap" : undefined;
			if (stop) {
				const output = result(false, stop);
				const why = stop === "cap" ? `reached \`max: ${max}\` without its condition` : "gave up";
				// Reaching a cap is not success; `on-fail: continue` keeps the value and goes on.
				if (node.onFail) return { record: { ok: true, output, ...(ledger ? { ledger } : {}) } };
				return {
					record: { ok: false, output, error: { kind: "unconverged", message: why }, ...(ledger ? { ledger } : {}) },
				};
			}
			if (node.carry) {
				const next = valueAt(node.carry.next, inner, world);
				if (!next.ok)
					return {
						record: {
							ok: false,
							error: { kind: "condition", message: `\`carry.next\` cannot be read: ${next.reason}` },
						},
					};
				carry = next.value;
				world.recorder.carried(iteration, carry);
			}
			previous = inner.records;
		}
		return { record: { ok: false, error: { kind: "unconverged", message: "no iteration ran" } } };
	} finally {
		await closeScope(memory);
	}
}
