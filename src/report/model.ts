/**
 * What the run did, derived once from its events and its journal read together: each
 * visit with its times and how it ended, each life with its span and outcome, and each node address's
 * state. The graph, the timeline and the tables all read this, so they can never disagree about what
 * happened to a node.
 */
import { addressOf, FAILURE_KIND_TABLE, type FailureKind, readFailureKind } from "../runtime/index.ts";
import type { RunData } from "./read.ts";

/** How a node ended, as the graph colours it. */
export type NodeState = "done" | "failed" | "cut" | "never";

/** One visit of one life, as the timeline draws it. */
export interface VisitSpan {
	path: string;
	node: string;
	kind: string;
	life: number;
	/** Epoch milliseconds. */
	start: number;
	/** Epoch milliseconds; the end of its life when the visit never ended (it was running when cut). */
	end: number;
	state: Exclude<NodeState, "never">;
	/** Milliseconds of the span it was held for a person (a `/step` pause): its time is `end - start - held`. */
	held: number;
	agent?: string;
	model?: string;
	error?: string;
}

/** One process's go at the run: the first start, or a resume. */
export interface LifeSpan {
	life: number;
	start: number;
	end: number;
	outcome: "ok" | "failed" | "interrupted";
	error?: string;
}

/** A node address's visits summed up for the graph. */
export interface NodeSummary {
	state: NodeState;
	visits: number;
	failed: number;
	cut: number;
}

/** The derived facts of a run. */
export interface RunModel {
	visits: VisitSpan[];
	lives: LifeSpan[];
	/** By node address (`polish/review`, `work/act`). */
	nodes: Map<string, NodeSummary>;
}

/** Derives visits, lives and node states from a run's data. */
export function runModel(data: RunData): RunModel {
	const raw = merged(fromEvents(data), fromJournal(data));
	const lives = livesOf(data, raw);
	const lifeEnd = new Map(lives.map((l) => [l.life, l.end]));
	const visits: VisitSpan[] = raw.map((v) => {
		const { end, ...rest } = v;
		return {
			...rest,
			end: end ?? Math.max(v.start, lifeEnd.get(v.life) ?? v.start),
			state: v.state ?? "cut",
			held: v.held ?? 0,
		};
	});
	return { visits, lives, nodes: nodesOf(visits) };
}

type Raw = Omit<VisitSpan, "end" | "state" | "held"> & { end?: number; state?: VisitSpan["state"]; held?: number };

/**
 * A visit that ended in a stop (the failure table's `stop`: a person's stop, a fail-fast cut, a spent
 * budget, an agent finishing `blocked`) was cut around it rather than failing: "running when cut", the
 * state a resume picks up. The table decides, so the report and the engine never disagree on a kind.
 */
function endState(ok: boolean, kind: FailureKind | undefined): VisitSpan["state"] {
	if (ok) return "done";
	return kind !== undefined && FAILURE_KIND_TABLE[kind].stop ? "cut" : "failed";
}

/**
 * The kind of a failed `node_end`: its `errorKind`. An events file from before `errorKind` existed holds
 * only the `kind: message` line, whose first word is the kind (failureText wrote it).
 */
function eventKind(e: { error?: string; errorKind?: FailureKind }): FailureKind | undefined {
	if (e.errorKind !== undefined) return readFailureKind(e.errorKind);
	return e.error === undefined ? undefined : readFailureKind(e.error.split(":")[0]?.trim());
}

function time(iso: unknown): number | undefined {
	const t = typeof iso === "string" ? Date.parse(iso) : Number.NaN;
	return Number.isNaN(t) ? undefined : t;
}

function fromEvents(data: RunData): Raw[] {
	const out: Raw[] = [];
	const open = new Map<string, Raw>();
	for (const e of data.events) {
		const at = time(e.at);
		if (at === undefined) continue;
		const key = `${e.life}\u0000${"path" in e ? e.path : ""}`;
		if (e.type === "node_start") {
			const v: Raw = {
				path: e.path,
				node: e.node,
				kind: e.kind,
				life: e.life,
				start: at,
				...(e.agent ? { agent: e.agent } : {}),
			};
			open.set(key, v);
			out.push(v);
		} else if (e.type === "turn_start") {
			const v = open.get(key);
			if (v) v.model = e.model;
		} else if (e.type === "node_end" && !e.replayed) {
			// A replayed end re-announces a visit of an earlier life; that life already drew it.
			const v = open.get(key);
			if (!v) continue;
			open.delete(key);
			v.end = at;
			v.state = endState(e.ok, eventKind(e));
			if (e.error) v.error = e.error;
			if (e.held) v.held = e.held;
		}
	}
	return out;
}

/**
 * Events and journal read together: events bring models and agents, the journal is the record. A visit
 * the journal holds is drawn in its own life even when its events never reached the disk (a crashed
 * process loses its last batch of events, never a journaled visit), and its end is the journal's.
 */
function merged(events: Raw[], journal: Raw[]): Raw[] {
	const key = (v: Raw) => `${v.life}\u0000${v.path}\u0000${v.start}`;
	const byLifePath = new Map<string, Raw[]>();
	for (const v of events) {
		const k = `${v.life}\u0000${v.path}`;
		byLifePath.set(k, [...(byLifePath.get(k) ?? []), v]);
	}
	const out = [...events];
	const seen = new Set(events.map(key));
	for (const j of journal) {
		const twins = byLifePath.get(`${j.life}\u0000${j.path}`) ?? [];
		// The same visit as an event saw it: the first of that life and path not yet matched.
		const twin = twins.shift();
		if (twin) {
			if (j.end !== undefined && (twin.end === undefined || twin.state === undefined)) {
				twin.end = j.end;
				twin.state = j.state;
				if (j.error) twin.error = j.error;
			}
			// The journal is the record: its end says how long the visit was held.
			if (j.held !== undefined) twin.held = j.held;
			continue;
		}
		if (!seen.has(key(j))) out.push(j);
	}
	return out.sort((a, b) => a.life - b.life || a.start - b.start);
}

function fromJournal(data: RunData): Raw[] {
	const out: Raw[] = [];
	const open = new Map<string, Raw>();
	for (const e of data.journal) {
		if (e.type !== "visit_start" && e.type !== "visit_end") continue;
		const at = time(e.at);
		if (at === undefined) continue;
		const key = `${e.life}\u0000${e.path}`;
		if (e.type === "visit_start") {
			const v: Raw = { path: e.path, node: e.node, kind: e.kind, life: e.life, start: at };
			open.set(key, v);
			out.push(v);
			continue;
		}
		const v = open.get(key);
		if (!v) continue;
		open.delete(key);
		v.end = at;
		const error = e.ended.error ? `${e.ended.error.kind}: ${e.ended.error.message}` : undefined;
		v.state = endState(e.ended.ok, e.ended.error?.kind);
		if (error) v.error = error;
		if (e.ended.held) v.held = e.ended.held;
	}
	return out;
}

function livesOf(data: RunData, visits: readonly Raw[]): LifeSpan[] {
	const lives = new Map<number, LifeSpan>();
	const touch = (life: number, at: number | undefined) => {
		if (at === undefined || !Number.isInteger(life)) return;
		const l = lives.get(life);
		if (!l) lives.set(life, { life, start: at, end: at, outcome: "interrupted" });
		else {
			l.start = Math.min(l.start, at);
			l.end = Math.max(l.end, at);
		}
	};
	for (const e of data.journal) if ("life" in e && "at" in e) touch(e.life, time(e.at));
	for (const e of data.events) touch(e.life, time(e.at));
	for (const v of visits) {
		touch(v.life, v.start);
		touch(v.life, v.end);
	}
	for (const e of data.journal) {
		if (e.type !== "run_end") continue;
		const l = lives.get(e.life);
		if (!l) continue;
		l.outcome = e.ok ? "ok" : "failed";
		if (e.error) l.error = e.error;
	}
	return [...lives.values()].sort((a, b) => a.life - b.life);
}

/**
 * A node's state from its visits: each visit path counts as it last ended (a visit failed in one life and
 * run again in the next counts as it ended the second time), then failed wins over cut and cut over
 * done, because the graph exists to show where a run went wrong.
 */
function nodesOf(visits: readonly VisitSpan[]): Map<string, NodeSummary> {
	const last = new Map<string, VisitSpan>();
	const count = new Map<string, number>();
	for (const v of visits) {
		// A visit run again in a later life is one visit of the node: counted once, as it last ended.
		if (!last.has(v.path)) count.set(addressOf(v.path), (count.get(addressOf(v.path)) ?? 0) + 1);
		last.set(v.path, v);
	}
	const nodes = new Map<string, NodeSummary>();
	for (const v of last.values()) {
		const a = addressOf(v.path);
		const n = nodes.get(a) ?? { state: "never" as NodeState, visits: count.get(a) ?? 0, failed: 0, cut: 0 };
		if (v.state === "failed") n.failed++;
		if (v.state === "cut") n.cut++;
		n.state = n.failed ? "failed" : n.cut ? "cut" : "done";
		nodes.set(a, n);
	}
	return nodes;
}
