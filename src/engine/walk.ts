/**
 * The walk: a sequence runs its nodes in order; a node that fails stops its sequence and its failure
 * travels up as `child` (naming the inner visit), unless `on-fail: continue` stops it at the node. A stop
 * of the run and a fail-fast cut are never absorbed. Every visit is announced at its start and end.
 */
import { FAILURE_KIND_TABLE, type Failure, type FlowEvent, failureText } from "../runtime/index.ts";
import { addCounters, emptyUsage, type Usage } from "../runtime/index.ts";
import type { FlowNode } from "../language/ast.ts";
import type { Value } from "../language/types/index.ts";
import type { KindRunner } from "./kind.ts";
import { createLedger } from "./ledger.ts";
import { identifyVisit, settleVisit } from "./reuse.ts";
import { modelKey } from "./models.ts";
import { type EndedVisit, endedOf } from "./record.ts";
import { findLedger, type Frame, type VisitRecord } from "./frames.ts";
import { ELSEWHERE, focusOf, type World } from "./world.ts";

/** How a sequence ended: the last record, or the failure that stopped it and where it started. */
export interface SequenceEnd {
	ok: boolean;
	last?: VisitRecord;
	/** The visit a failure started at, and its record. */
	failedAt?: string;
	failure?: VisitRecord;
	/** The visit of this sequence the failure surfaced at (a block naming an inner failure). */
	surfacedAt?: string;
}

/** Runs a sequence of nodes in `frame`. */
export function runSequence(
	world: World,
	nodes: readonly FlowNode[],
	frame: Frame,
	signal: AbortSignal,
): Promise<SequenceEnd> {
	// A body of one node (every map item of a one-node body) waits on its visit without an async step of
	// its own, which would be held for the whole visit.
	if (nodes.length !== 1) return runNodes(world, nodes, frame, signal);
	const node = nodes[0];
	const visit = visitOf(frame, node);
	return runVisit(world, node, frame, visit, signal).then(endOfOne.bind(undefined, frame, node, visit));
}

/** The end of a one-node body. Bound, not a closure made per body: see {@link OpenVisit}. */
function endOfOne(frame: Frame, node: FlowNode, visit: string, ran: Dispatched): SequenceEnd {
	return stepped(frame, node, visit, ran.record, ran.failedAt) ?? { ok: true, last: ran.record };
}

async function runNodes(
	world: World,
	nodes: readonly FlowNode[],
	frame: Frame,
	signal: AbortSignal,
): Promise<SequenceEnd> {
	let last: VisitRecord | undefined;
	for (const node of nodes) {
		const visit = visitOf(frame, node);
		const { record, failedAt } = await runVisit(world, node, frame, visit, signal);
		const failed = stepped(frame, node, visit, record, failedAt);
		if (failed) return failed;
		last = record;
	}
	return last ? { ok: true, last } : { ok: true };
}

function visitOf(frame: Frame, node: FlowNode): string {
	return frame.prefix ? `${frame.prefix}/${node.id.value}` : node.id.value;
}

/** Keeps a node's record in its frame; the sequence's end when the node failed and `on-fail` does not absorb it. */
function stepped(
	frame: Frame,
	node: FlowNode,
	visit: string,
	record: VisitRecord,
	failedAt: string | undefined,
): SequenceEnd | undefined {
	frame.records.set(node.id.value, record);
	if (record.ok || (node.onFail && !isStop(record))) return undefined;
	return { ok: false, last: record, failure: record, failedAt: failedAt ?? visit, surfacedAt: visit };
}

/**
 * A run stop, a fail-fast cut, a spent budget or a blocker a person must clear: never caught by
 * `on-fail: continue`, and run again on resume.
 */
export function isStop(record: VisitRecord): boolean {
	return record.error !== undefined && FAILURE_KIND_TABLE[record.error.kind].stop;
}

/** Runs one visit and announces it. */
export function runVisit(
	world: World,
	node: FlowNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<{ record: VisitRecord; failedAt?: string }> {
	const agent = node.kind === "agent" ? (node.agent?.value ?? "") : undefined;
	const replayed = world.options.replay?.ended(visit);
	if (replayed) {
		// Ended in an earlier life: its value is taken from the journal and nothing runs again.
		const record = replayRecord(replayed, node, frame);
		world.emit({
			type: "node_end",
			path: visit,
			node: node.id.value,
			kind: node.kind,
			ok: record.ok,
			usage: emptyUsage(),
			replayed: true,
			...(replayed.reuse ? { reuse: replayed.reuse } : {}),
			...(agent ? { agent } : {}),
			...(record.error ? { error: failureText(record.error), errorKind: record.error.kind } : {}),
			...(record.output !== undefined ? { output: record.output } : {}),
		});
		return Promise.resolve({ record });
	}
	// A run focused on one item (a worker's share of a map) leaves every other visit to whoever runs it, and
	// walks the blocks above the item without recording them: their ends are the coordinator's to record.
	const place = focusOf(visit, world.options.focus);
	if (place === "outside") return Promise.resolve({ record: ELSEWHERE });
	if (place === "above") return dispatch(world, node, frame, visit, signal);
	// Events and the journal's end are built field by field (in the order their readers know): every visit
	// makes them, and each conditional spread would be an object thrown away.
	if (world.hears) {
		const start: FlowEvent = { type: "node_start", path: visit, node: node.id.value, kind: node.kind };
		if (agent) start.agent = agent;
		// The model a literal agent node runs on, so a trace names its provider as the visit starts.
		const model = agent ? world.options.models.get(modelKey(world.prefix, node.id.value))?.ref : undefined;
		if (model) start.model = model;
		world.emit(start);
	}
	world.recorder.visitStart(visit, node.id.value, node.kind);
	identifyVisit(world, node, frame, visit);
	const open = new OpenVisit(world, node, visit, agent);
	const scoped: World = Object.create(world);
	scoped.spend = open.spend.bind(open);
	scoped.hold = open.hold.bind(open);
	// Chained rather than awaited: an async step here would be held for the whole visit, every visit.
	let dispatching: Promise<{ record: VisitRecord; failedAt?: string }>;
	try {
		dispatching = dispatch(scoped, node, frame, visit, signal);
	} catch (error) {
		return Promise.resolve(open.fail(error));
	}
	return dispatching.then(open.finish.bind(open), open.fail.bind(open));
}

type Dispatched = { record: VisitRecord; failedAt?: string };

/**
 * A visit in flight: what its turns and its children spent, how long a person held them, and its end once
 * its record has settled. A class whose methods are bound where a callback is wanted, not closures made per
 * visit: V8 keeps a closure's optimized code only while an instance of it lives, so closures made for each
 * visit were compiled again after every full collection, in every run.
 */
class OpenVisit {
	readonly world: World;
	readonly node: FlowNode;
	readonly visit: string;
	readonly agent: string | undefined;
	readonly started = performance.now();
	// A visit's usage is its own turns and its children's, nothing else: concurrent siblings spend into
	// their own visits, so each visit counts through its own world.
	readonly own = emptyUsage();
	// Likewise the time its turns were held for a person: a /step pause is not the visit's time. The
	// pauses of a run are one at a time, so a block's share is its children's sum.
	held = 0;
	constructor(world: World, node: FlowNode, visit: string, agent: string | undefined) {
		this.world = world;
		this.node = node;
		this.visit = visit;
		this.agent = agent;
	}

	spend(u: Usage): void {
		addCounters(this.own, u);
		this.world.spend(u);
	}

	hold(ms: number): void {
		this.held += ms;
		this.world.hold?.(ms);
	}

	finish(dispatched: Dispatched): Dispatched | Promise<Dispatched> {
		// Most visits settle at once: only a tree to look at is waited for.
		const settling = settleVisit(this.world, this.node, this.visit, dispatched.record);
		return settling instanceof Promise
			? settling.then((settled) => this.close(dispatched, settled))
			: this.close(dispatched, settling);
	}

	fail(error: unknown): Dispatched | Promise<Dispatched> {
		return this.finish(internalError(error));
	}

	/** The visit's end: its usage and time, the journal's end, the event. */
	close(dispatched: Dispatched, settled: VisitRecord): Dispatched {
		const { world, node, visit, agent, held } = this;
		const out = settled === dispatched.record ? dispatched : { ...dispatched, record: settled };
		const usage = { ...this.own, ms: Math.max(0, performance.now() - this.started - held) };
		const { record } = out;
		// Stopped and cut visits did not end: a resume runs them again from their start.
		if (!isStop(record)) {
			const ended = endedOf(record);
			if (!record.ok && node.onFail) ended.absorbed = true;
			if (held > 0) ended.held = Math.round(held);
			world.recorder.visitEnd(visit, node.id.value, node.kind, ended, usage);
		}
		const end: FlowEvent = {
			type: "node_end",
			path: visit,
			node: node.id.value,
			kind: node.kind,
			ok: record.ok,
			usage,
		};
		if (held > 0) end.held = Math.round(held);
		if (agent) end.agent = agent;
		if (record.error) {
			end.error = failureText(record.error);
			end.errorKind = record.error.kind;
		}
		if (record.output !== undefined) end.output = record.output as Value;
		if (record.handoff !== undefined) end.handoff = record.handoff;
		if (record.reuse) end.reuse = record.reuse;
		world.emit(end);
		return out;
	}
}

/** A bug in a visitor must not leave sessions open or the run hanging: it becomes this visit's failure. */
function internalError(error: unknown): { record: VisitRecord } {
	return {
		record: {
			ok: false,
			error: { kind: "unavailable", message: `internal error: ${(error as Error)?.message ?? String(error)}` },
		},
	};
}

/** Each kind runs itself (its runner in `kinds.ts`). */
function dispatch(
	world: World,
	node: FlowNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<{ record: VisitRecord; failedAt?: string }> {
	// The kind's run half, from the table the run was started with (the walk imports no kind: a block
	// runs its body back through here).
	const runner = world.runners[node.kind as FlowNode["kind"]] as unknown as KindRunner<FlowNode>;
	return runner.run(world, node, frame, visit, signal);
}

/** A journaled end as a live record: a block's ledger is rebuilt, a verdict's effect re-applied to its ledger. */
export function replayRecord(ended: EndedVisit, node: FlowNode, frame: Frame): VisitRecord {
	const record: VisitRecord = {
		ok: ended.ok,
		...(ended.output !== undefined ? { output: ended.output } : {}),
		...(ended.error ? { error: ended.error } : {}),
		...(ended.handoff !== undefined ? { handoff: ended.handoff } : {}),
	};
	if (ended.obligations) {
		const ledger = createLedger();
		for (const o of ended.obligations) ledger.restore(o);
		record.ledger = ledger;
	}
	if (ended.verdict && node.kind === "agent" && node.verdict) {
		const ledger = findLedger(frame, node.verdict.value);
		for (const o of ended.verdict.effect.raised) ledger.restore(o);
		for (const id of ended.verdict.effect.closed) {
			const o = ledger.all().find((x) => x.id === id);
			if (o && !o.closed) ledger.restore({ ...o, closed: { how: "addressed", at: "replayed" } });
		}
		record.verdict = ended.verdict;
	}
	return record;
}

/**
 * A block's failure, named after the innermost visit where it started (stops keep their own kind). A child
 * failure's message already names that visit, so nesting passes it on unchanged instead of prefixing the
 * path again at every level (`route: child: route/fix#2/review: provider: …`, not `… child: … child: …`).
 */
export function childFailure(inner: SequenceEnd, fallbackVisit: string): VisitRecord {
	const f = inner.failure;
	if (f?.error && isStop(f)) return { ok: false, error: { ...f.error } };
	return { ok: false, error: { kind: "child", message: innermost(inner.failedAt ?? fallbackVisit, f?.error) } };
}

/** `visit: kind: message` of the failure that started it all. */
export function innermost(visit: string, error: Failure | undefined): string {
	if (error?.kind === "child") return error.message;
	return `${visit}: ${error?.kind ?? "failed"}: ${error?.message ?? ""}`;
}
