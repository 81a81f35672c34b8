/**
 * A map at run time: its list is read once and frozen in the journal (`map_items`), `max` is enforced
 * before any item runs, and the body runs per item, `concurrency` at a time, here or where the backend
 * places the item.
 */
import { mapConcurrent } from "../../runtime/index.ts";
import type { MapNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { body, cutter, ELSEWHERE_END, inCopy, scope, settle, withKept, withLanding } from "../../engine/blocks.ts";
import { blockCopies } from "../../engine/copies.ts";
import { childFrame, entryValue, type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import type { VisitEnd } from "../../engine/kind.ts";
import { createLedger, type Ledger } from "../../engine/ledger.ts";
import { valueAt } from "../../engine/turn.ts";
import type { SequenceEnd } from "../../engine/walk.ts";
import { focusOf, stopKind, type World } from "../../engine/world.ts";

/** A map: the list is read once and frozen; `max` is enforced before any item runs. */
export async function runMap(
	world: World,
	node: MapNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	let items: Value[];
	const kept = world.options.replay?.mapItems(visit);
	if (kept) items = kept;
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
	if (!kept) world.recorder.mapItems(visit, items);
	const cut = cutter(node, signal);
	const copies = node.copies?.value ? blockCopies(world, frameCwd(frame, world)) : undefined;
	// Items go where the backend places them, unless they work in copies (worktrees are this machine's) or
	// this map only holds the item a focused run is about (that one runs here).
	const placement = copies || focusOf(visit, world.options.focus) !== "inside" ? undefined : world.options.items;
	let released = false;
	try {
		const ledgers: (Ledger | undefined)[] = [];
		const ended = (end: SequenceEnd): SequenceEnd => {
			if (!end.ok) cut.failed();
			return end;
		};
		const ends = await mapConcurrent(items, node.concurrency?.value ?? 1, (item, i): Promise<SequenceEnd> => {
			// Every item runs this: its visit named once, no conditional spread, no async step for what it does not use.
			const at = `${visit}[${i + 1}]`;
			if (focusOf(at, world.options.focus) === "outside") return Promise.resolve(ELSEWHERE_END);
			const ledger = node.ledger ? createLedger() : undefined;
			ledgers[i] = ledger;
			const block: NonNullable<Frame["block"]> = {
				id: node.id.value,
				kind: "map",
				item,
				memory: scope(node.id.value, at),
			};
			if (ledger) block.ledger = ledger;
			const inner = childFrame(frame, at, block);
			if (cut.signal.aborted) {
				// Never started: its entry still says why (a fail-fast cut, or the run's stop), like a cut item's.
				const why = stopKind(world, cut.signal);
				const failure: VisitRecord = { ok: false, error: { kind: why.kind, message: `not started: ${why.message}` } };
				return Promise.resolve({ ok: false, failure, last: failure, failedAt: at } as SequenceEnd);
			}
			if (!copies && !placement) return body(world, node.body, inner, cut.signal).then(ended);
			return (async () => {
				if (copies) {
					const failedCopy = await inCopy(copies, i, `${node.id.value}-${i + 1}`, inner);
					if (failedCopy) return failedCopy;
				}
				const placed = placement ? await placeItem(placement, visit, at, cut.signal) : undefined;
				if (placed) {
					cut.failed();
					return placed;
				}
				return ended(await body(world, node.body, inner, cut.signal));
			})();
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
