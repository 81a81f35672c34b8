/**
 * What a run holds while it walks: each ended visit as a record, in one frame per body visit, and the
 * lookup conditions and reads use. The lookup decides nothing about visibility: it takes what the checker
 * resolved each address to (`CheckedFlow.resolutions`) and fetches that value from the frames. A read of a
 * failed node or an absent field is an error value, never a silent `false` or empty string.
 */
import type { Failure } from "../runtime/index.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { AddressExpr } from "../language/syntax/index.ts";
import type { Value } from "../language/types/index.ts";
import type { Outcome } from "./evaluate.ts";
import { createLedger, type Ledger, type VerdictEffect } from "./ledger.ts";
import type { ReuseNote } from "../runtime/index.ts";
import type { TreeEffect } from "./record.ts";

/** How a visit ended. */
export interface VisitRecord {
	ok: boolean;
	output?: Value;
	/** Why the visit failed, as `x.error` reads it. */
	error?: Failure;
	/** An agent node's handoff document, when it wrote one. */
	handoff?: Value;
	/** A block's ledger, readable as `<id>.ledger` after the block too. */
	ledger?: Ledger;
	/** What a verdict turn did to its ledger (journaled, re-applied on replay). */
	verdict?: { ledger: string; effect: VerdictEffect };
	/** What reuse across runs decided for the visit (journaled in its end, carried by `node_end`). */
	reuse?: ReuseNote;
	/** The visit's change to the tree, recorded for a later run to write again. */
	effect?: TreeEffect;
}

/** A memory scope's live subagents (closed when the scope's visit ends). */
export interface MemoryScope {
	readonly id: string;
	/** The scope's visit (`deliver#1/work[2]/pair`), stable across lives: it names the scope's sessions. */
	readonly instance: string;
	/** Disposers of what was opened in this scope, run when it closes. */
	readonly closers: (() => Promise<void>)[];
	readonly values: Map<string, unknown>;
}

/** One lexical frame: a sequence's ended nodes, plus what its block adds. */
export interface Frame {
	parent?: Frame;
	records: Map<string, VisitRecord>;
	/** The visit path prefix of nodes in this frame (`deliver#2/work[1]`), empty at the root. */
	prefix: string;
	/** The tree this frame works in: a branch's copy inside `copies: true`, else inherited. */
	cwd?: string;
	/** The block this frame is the body of, with what it offers its body. */
	block?: {
		id: string;
		kind: string;
		item?: Value;
		previous?: Map<string, VisitRecord>;
		carry?: Value;
		ledger?: Ledger;
		memory: MemoryScope;
	};
}

/** The tree a frame works in. */
export function frameCwd(frame: Frame, world: { options: { cwd: string } }): string {
	for (let f: Frame | undefined = frame; f; f = f.parent) if (f.cwd) return f.cwd;
	return world.options.cwd;
}

/** A child frame for a block's body. */
export function childFrame(parent: Frame, prefix: string, block: NonNullable<Frame["block"]>): Frame {
	return { parent, records: new Map(), prefix, block };
}

const ok = (value: Value): Outcome => ({ ok: true, value });
const fail = (reason: string): Outcome => ({ ok: false, reason });

/** What a lookup reads besides the frames: the run's input and what the checker resolved. */
export interface Reading {
	readonly input: Value;
	readonly flow: Pick<CheckedFlow, "resolutions">;
}

/**
 * Looks addresses up in `frame` by what the checker bound each one to: `input`, a map's `item`, a node's
 * record, or an enclosing block's `previous`/`carry`/`ledger`. The frames are found by id (node ids are
 * unique in a checked flow), so the lookup never weighs one name against another.
 */
export function lookupIn(
	frame: Frame,
	reading: Reading,
): (segments: readonly string[], address: AddressExpr) => Outcome {
	// Bound rather than a closure: every read of every turn looks up through one, and V8 keeps a closure's
	// optimized code only while an instance of it lives, so a closure was compiled again after every full
	// collection, in every run.
	return lookUp.bind(undefined, frame, reading);
}

function lookUp(frame: Frame, reading: Reading, segments: readonly string[], address: AddressExpr): Outcome {
	const [root, second, ...rest] = segments;
	const binding = reading.flow.resolutions.get(address)?.binding;
	if (!binding) return fail(`\`${segments.join(".")}\` was not resolved by the checker`);
	switch (binding.kind) {
		case "input":
			return into(segments, ok(reading.input), segments.slice(1));
		case "diff":
			// A turn reads the diff itself (`renderRead`); anywhere else it has no value.
			return fail("`diff` has no value here");
		case "item": {
			const map = blockFrame(frame, binding.map);
			return map?.block?.item !== undefined
				? into(segments, ok(map.block.item), segments.slice(1))
				: fail("`item` is read outside a map");
		}
		case "node": {
			for (let f: Frame | undefined = frame; f; f = f.parent) {
				const record = f.records.get(binding.id);
				if (record) return recordField(record, root, second, rest, segments);
			}
			return fail(`\`${root}\` has no value here`);
		}
		case "block": {
			const block = blockFrame(frame, binding.id)?.block;
			if (block && second === "previous") {
				const [node, ...more] = rest;
				const prev = block.previous?.get(node ?? "");
				if (!prev) return fail(`\`${root}.previous.${node}\` has no value on the first iteration`);
				return recordField(prev, node ?? "", more[0], more.slice(1), segments, true);
			}
			if (block && second === "carry")
				return block.carry === undefined
					? fail(`\`${root}.carry\` has no value`)
					: into(segments, ok(block.carry), rest);
			if (block && second === "ledger" && block.ledger) return ok(block.ledger.open());
			return fail(`\`${root}\` has no value here`);
		}
	}
}

/** The value at `from` inside `v`, for the address `segments` (named in the failure). */
function into(segments: readonly string[], v: Outcome, from: readonly string[]): Outcome {
	let cur = v;
	for (const name of from) {
		if (!cur.ok) return cur;
		const x = cur.value;
		if (!x || typeof x !== "object" || Array.isArray(x))
			return fail(`\`${segments.join(".")}\` reads into a value with no fields`);
		cur = Object.hasOwn(x, name) ? ok((x as Record<string, Value>)[name]) : fail(`\`${segments.join(".")}\` is absent`);
	}
	return cur;
}

/** The frame that is the body of the block `id`, from `frame` outwards. */
function blockFrame(frame: Frame, id: string): Frame | undefined {
	for (let f: Frame | undefined = frame; f; f = f.parent) if (f.block?.id === id) return f;
	return undefined;
}

function recordField(
	record: VisitRecord,
	root: string,
	second: string | undefined,
	rest: readonly string[],
	segments: readonly string[],
	entry = false,
): Outcome {
	const failed = () => fail(`\`${root}\` failed (${record.error?.kind}: ${record.error?.message})`);
	if (second === undefined) {
		if (entry) return ok(entryValue(record));
		return record.ok && record.output !== undefined ? ok(record.output) : failed();
	}
	if (second === "ok") return ok(record.ok);
	if (second === "output") return record.output !== undefined ? into(segments, ok(record.output), rest) : failed();
	if (second === "error")
		return record.error
			? into(segments, ok({ ...record.error }), rest)
			: fail(`\`${root}.error\` is absent: it did not fail`);
	if (second === "handoff")
		return record.handoff !== undefined
			? into(segments, ok(record.handoff), rest)
			: fail(`\`${root}\` wrote no handoff`);
	if (second === "ledger") {
		return record.ledger ? ok(record.ledger.open()) : fail(`\`${root}\` has no ledger`);
	}
	return fail(`\`${root}.${second}\` is not readable`);
}

/** A record as an entry value `{ ok, output?, error? }` (what blocks' outputs hold). */
export function entryValue(record: VisitRecord): Value {
	return {
		ok: record.ok,
		...(record.output !== undefined ? { output: record.output } : {}),
		...(record.error ? { error: { kind: record.error.kind, message: record.error.message } } : {}),
	};
}

/** The ledger a verdict node names: its enclosing block's. */
export function findLedger(frame: Frame, id: string): Ledger {
	for (let f: Frame | undefined = frame; f; f = f.parent)
		if (f.block?.id === id && f.block.ledger) return f.block.ledger;
	// The checker guarantees an enclosing ledger; a fresh one keeps a programming error from crashing a run.
	return createLedger();
}

/** The memory scope `id` names from `frame` outwards (`flow` is the run's own, or the callee's). */
export function memoryScope(frame: Frame, id: string): MemoryScope | undefined {
	let root: Frame = frame;
	for (let f: Frame | undefined = frame; f; f = f.parent) {
		if (f.block?.id === id) return f.block.memory;
		root = f;
	}
	return id === "flow" ? (root.block?.memory ?? rootMemory(root)) : undefined;
}

const ROOT_MEMORY = new WeakMap<Frame, MemoryScope>();

/** The flow's own memory scope (`memory: flow`), closed when the run ends. */
export function rootMemory(root: Frame): MemoryScope {
	let m = ROOT_MEMORY.get(root);
	if (!m) {
		m = { id: "flow", instance: `${root.prefix || ""}flow`, closers: [], values: new Map() };
		ROOT_MEMORY.set(root, m);
	}
	return m;
}
