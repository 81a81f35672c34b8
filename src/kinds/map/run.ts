/**
 * A map at run time: its list is read once and frozen in the journal (`map_items`), `max` is enforced
 * before any item runs, and the body runs per item, `concurrency` at a time, here or where the backend
 * places the item.
 */
import { mapConcurrent } from "../../runtime/index.ts";
import type { MapNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { body, cutter, ELSEWHERE_END, inCopy, scope, settle, withKept, withLanding } from "../../engine/blocks.ts";
import { type BlockCopies, blockCopies } from "../../engine/copies.ts";
import { childFrame, entryValue, type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import type { VisitEnd } from "../../engine/kind.ts";
import { createLedger } from "../../engine/ledger.ts";
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
		const each = new MapItem(world, node, frame, visit, cut, copies, placement);
		const ends = await mapConcurrent(items, node.concurrency?.value ?? 1, each.run.bind(each));
		const landed = copies && !world.options.signal?.aborted ? await copies.land(ends.length) : undefined;
		// Each entry is the body's last node as it ended (as a parallel's are): a failure kept by `on-fail:
		// continue` still reads `ok: false` with its error, though it counts as a success for the join.
		// A loop, not a callback: a callback made per map is compiled again after every full collection.
		const output: Value[] = [];
		for (let i = 0; i < ends.length; i++) {
			const e = ends[i] as SequenceEnd;
			output.push(
				withLanding(
					{ item: items[i], ...(e.last ? (entryValue(e.last) as object) : { ok: e.ok }) },
					copies,
					landed?.[i],
				),
			);
		}
		released = true;
		return await withKept(settle(node, ends, visit, output), await copies?.release());
	} finally {
		cut.done();
		if (!released) await copies?.release();
	}
}

/** A map's fail-fast cutter. */
type Cut = ReturnType<typeof cutter>;

/**
 * One item of a map, as every item runs it: its visit named once, no conditional spread, no async step for
 * what it does not use. A class whose bound method is the item callback rather than a closure made per map:
 * V8 keeps a closure's optimized code only while an instance of it lives, so a closure made for each map was
 * compiled again after every full collection, in every run.
 */
class MapItem {
	readonly world: World;
	readonly node: MapNode;
	readonly frame: Frame;
	readonly visit: string;
	readonly cut: Cut;
	readonly copies: BlockCopies | undefined;
	readonly placement: NonNullable<World["options"]["items"]> | undefined;
	/** A body's end, cutting the siblings of a failed one under `fail-fast`. */
	readonly ended: (end: SequenceEnd) => SequenceEnd;
	constructor(
		world: World,
		node: MapNode,
		frame: Frame,
		visit: string,
		cut: Cut,
		copies: BlockCopies | undefined,
		placement: NonNullable<World["options"]["items"]> | undefined,
	) {
		this.world = world;
		this.node = node;
		this.frame = frame;
		this.visit = visit;
		this.cut = cut;
		this.copies = copies;
		this.placement = placement;
		this.ended = endedUnder.bind(undefined, cut);
	}

	run(item: Value, i: number): Promise<SequenceEnd> {
		const { world, node, cut } = this;
		const at = `${this.visit}[${i + 1}]`;
		if (focusOf(at, world.options.focus) === "outside") return Promise.resolve(ELSEWHERE_END);
		const block: NonNullable<Frame["block"]> = {
			id: node.id.value,
			kind: "map",
			item,
			memory: scope(node.id.value, at),
		};
		if (node.ledger) block.ledger = createLedger();
		const inner = childFrame(this.frame, at, block);
		if (cut.signal.aborted) {
			// Never started: its entry still says why (a fail-fast cut, or the run's stop), like a cut item's.
			const why = stopKind(world, cut.signal);
			const failure: VisitRecord = { ok: false, error: { kind: why.kind, message: `not started: ${why.message}` } };
			return Promise.resolve({ ok: false, failure, last: failure, failedAt: at } as SequenceEnd);
		}
		if (!this.copies && !this.placement) return body(world, node.body, inner, cut.signal).then(this.ended);
		return this.elsewhere(i, at, inner);
	}

	/** An item that works in a copy, or where the backend places it. */
	async elsewhere(i: number, at: string, inner: Frame): Promise<SequenceEnd> {
		const { world, node, cut, copies, placement } = this;
		if (copies) {
			const failedCopy = await inCopy(copies, i, `${node.id.value}-${i + 1}`, inner);
			if (failedCopy) return failedCopy;
		}
		const placed = placement ? await placeItem(placement, this.visit, at, cut.signal) : undefined;
		if (placed) {
			cut.failed();
			return placed;
		}
		return this.ended(await body(world, node.body, inner, cut.signal));
	}
}

function endedUnder(cut: Cut, end: SequenceEnd): SequenceEnd {
	if (!end.ok) cut.failed();
	return end;
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
