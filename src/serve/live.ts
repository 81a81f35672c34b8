/**
 * One run followed for every page that shows it: its record is read as it grows, its view made again
 * (at most every `buildMs`, and every second for what time alone changes: a stall, a process gone), and
 * what changed is sent to each page as a server-sent event whose id is where the record stands
 * (`<journal lines>.<event lines>.<n>`). A page that comes back with the id it last had gets what follows;
 * any other page gets the whole view first. A page that cannot keep up is closed, and its reconnection
 * starts from the whole view again, so no page ever shows a state it pieced together wrongly.
 *
 * Every value leaves through `redactJson`/`redactText` (src/secrets) here, the one door of the stream.
 */
import type { ServerResponse } from "node:http";
import { graphSvg, type NodeSummary } from "../report/index.ts";
import { redactJson, redactText } from "../secrets/index.ts";
import type { RunRecord } from "./record.ts";
import { type RunView, viewOf } from "./view.ts";

/** What follows a run's record, whichever backend keeps it. */
export interface Follower {
	/** Reads what was added since the last call; true when the record grew. */
	poll(): Promise<boolean>;
	/** Where the record stands, as a string that grows with it. */
	position(): string;
	record(): Promise<RunRecord>;
	/** Called about once a second while a page follows (a DBOS run is dated as followed, so its questions wait). */
	beat?(): Promise<void>;
	close?(): Promise<void>;
}

const MAPS = ["nodes", "visits", "turns"] as const;
type MapKey = (typeof MAPS)[number];
type Section = Exclude<keyof RunView, MapKey>;
const SECTIONS: Section[] = [
	"head",
	"totals",
	"budget",
	"bounds",
	"lanes",
	"retries",
	"faults",
	"inDoubt",
	"questions",
	"asked",
	"outcome",
	"notes",
	"actions",
];

/** What changed between two views: whole sections, and the entries of the keyed maps. */
export interface Patch {
	from: string;
	to: string;
	set: Partial<Record<Section, unknown>>;
	maps: Partial<Record<MapKey, { set: Record<string, unknown>; del: string[] }>>;
	/** The graph drawn again, when the nodes' states or counts changed. */
	graph?: string;
}

/** The JSON text of each part of a view, to tell what changed without comparing values deeply. */
interface Texts {
	sections: Map<Section, string>;
	maps: Map<MapKey, Map<string, string>>;
}

function textsOf(view: RunView): Texts {
	const sections = new Map<Section, string>();
	for (const s of SECTIONS) sections.set(s, JSON.stringify(view[s] ?? null));
	const maps = new Map<MapKey, Map<string, string>>();
	for (const m of MAPS) maps.set(m, new Map(Object.entries(view[m]).map(([k, v]) => [k, JSON.stringify(v)])));
	return { sections, maps };
}

/** The patch from `before` to `after`, or undefined when nothing changed. */
export function diffViews(before: Texts, after: Texts, view: RunView, from: string, to: string): Patch | undefined {
	const patch: Patch = { from, to, set: {}, maps: {} };
	let changed = false;
	for (const s of SECTIONS) {
		if (before.sections.get(s) === after.sections.get(s)) continue;
		patch.set[s] = view[s] ?? null;
		changed = true;
	}
	for (const m of MAPS) {
		const was = before.maps.get(m) ?? new Map<string, string>();
		const now = after.maps.get(m) ?? new Map<string, string>();
		const set: Record<string, unknown> = {};
		const del: string[] = [];
		for (const [k, text] of now) if (was.get(k) !== text) set[k] = (view[m] as Record<string, unknown>)[k];
		for (const k of was.keys()) if (!now.has(k)) del.push(k);
		if (Object.keys(set).length || del.length) {
			patch.maps[m] = { set, del };
			changed = true;
		}
	}
	return changed ? patch : undefined;
}

/** The graph of a view as the report draws it (a running node drawn as the report's nearest, then set by the page). */
export function graphOf(record: RunRecord, view: RunView): string {
	if (!record.flow) return "";
	const nodes = new Map<string, NodeSummary>(
		Object.entries(view.nodes).map(([a, n]) => [
			a,
			{ state: n.state === "running" ? "cut" : n.state, visits: n.visits, failed: n.failed, cut: 0 },
		]),
	);
	return redactText(graphSvg(record.flow, nodes));
}

/** A page following the run. */
interface Page {
	res: ServerResponse;
}

/** Past this much unsent output a page is taken for one that cannot keep up, and closed. */
const BEHIND_BYTES = 4 * 1024 * 1024;

/** A run followed for its pages; it stops reading once the last page left. */
export class LiveRun {
	readonly #follow: Follower;
	readonly #pages = new Set<Page>();
	readonly #buildMs: number;
	#view: RunView | undefined;
	#texts: Texts | undefined;
	#graph = "";
	#graphKey = "";
	#whole: { id: string; view: RunView; graph: string } | undefined;
	#id = "";
	#n = 0;
	#built = 0;
	#beat = 0;
	#timer: NodeJS.Timeout | undefined;
	#busy = false;
	#dirty = true;
	/** How long the last view took to make (ms). */
	#cost = 0;
	/** Told when the last page left, so the owner can drop this run. */
	onIdle?: () => void;

	constructor(follow: Follower, buildMs = 100) {
		this.#follow = follow;
		this.#buildMs = buildMs;
	}

	/** Whether a page follows the run now. */
	followed(): boolean {
		return this.#pages.size > 0;
	}

	/** The current view: made now, unless pages follow the run (then their ticks keep it current). */
	async view(): Promise<{ id: string; view: RunView; graph: string }> {
		if (!this.#view || (!this.#timer && Date.now() - this.#built > 250)) await this.#build(true);
		// The whole view, redacted once per id: every page that opens at that id gets the same text.
		if (this.#whole?.id !== this.#id)
			this.#whole = { id: this.#id, view: redactJson(this.#view as RunView), graph: this.#graph };
		return this.#whole;
	}

	/** Adds a page: the whole view unless it already has the current id. */
	async add(res: ServerResponse, lastId: string | undefined): Promise<void> {
		const page: Page = { res };
		this.#pages.add(page);
		res.on("close", () => {
			this.#pages.delete(page);
			if (!this.#pages.size) this.#stop();
		});
		const now = await this.view();
		if (lastId !== now.id) send(res, now.id, "view", now);
		this.#start();
	}

	#start(): void {
		if (this.#timer) return;
		this.#timer = setInterval(() => void this.#tick(), Math.max(20, Math.min(this.#buildMs, 250)));
	}

	#stop(): void {
		if (this.#timer) clearInterval(this.#timer);
		this.#timer = undefined;
		this.onIdle?.();
	}

	async #tick(): Promise<void> {
		if (this.#busy) return;
		this.#busy = true;
		try {
			if (await this.#follow.poll()) this.#dirty = true;
			const now = Date.now();
			if (this.#follow.beat && now - this.#beat >= 1000) {
				this.#beat = now;
				await this.#follow.beat().catch(() => {});
			}
			// A view that takes long to make is made less often (at most a third of the time goes to it), so a
			// busy run's pages trail it by a bounded lag instead of a growing queue.
			const gap = Math.max(this.#buildMs, 2 * this.#cost);
			if ((this.#dirty && now - this.#built >= gap) || now - this.#built >= 1000) await this.#build(false);
		} catch {
			// A read that failed (a database gone for a moment) is tried again at the next tick.
		} finally {
			this.#busy = false;
		}
	}

	async #build(first: boolean): Promise<void> {
		if (first) await this.#follow.poll();
		const began = performance.now();
		const record = await this.#follow.record();
		const view = viewOf(record, Date.now());
		this.#built = Date.now();
		this.#dirty = false;
		const texts = textsOf(view);
		// The graph is the report's drawing of the nodes' states and counts: drawn again when those changed.
		const graphKey = JSON.stringify(Object.entries(view.nodes).map(([a, n]) => [a, n.state, n.visits, n.failed]));
		const graph = graphKey !== this.#graphKey ? graphOf(record, view) : this.#graph;
		this.#graphKey = graphKey;
		const patch = this.#texts ? diffViews(this.#texts, texts, view, this.#id, "") : undefined;
		if (patch && graph !== this.#graph) patch.graph = graph;
		if (this.#texts && !patch) return;
		const to = `${this.#follow.position()}.${++this.#n}`;
		if (patch) patch.to = to;
		this.#graph = graph;
		this.#view = view;
		this.#texts = texts;
		this.#id = to;
		this.#cost = performance.now() - began;
		if (!patch) return;
		const data = redactJson(patch);
		for (const page of this.#pages) {
			if (page.res.writableLength > BEHIND_BYTES) {
				page.res.destroy();
				continue;
			}
			send(page.res, to, "patch", data);
		}
	}

	async close(): Promise<void> {
		for (const page of this.#pages) page.res.end();
		this.#pages.clear();
		if (this.#timer) clearInterval(this.#timer);
		this.#timer = undefined;
		await this.#follow.close?.();
	}
}

/** One server-sent event. */
export function send(res: ServerResponse, id: string, event: string, data: unknown): void {
	res.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
