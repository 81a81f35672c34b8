/**
 * The walk's side of reuse across runs (docs/runs.md, "Reuse"): every visit's identity is journaled as it
 * starts; with an earlier run to reuse, a visit whose identity equals one of its finished, ok visits is not
 * played: its end is copied (output, handoff, verdict), its usage is shown as saved and counted 0, and a
 * change it made to the tree is written again, exactly, or the visit runs and says why. Which earlier visit
 * matches is the source's business (`src/reuse`); the walk only asks, and words every miss.
 *
 *   reuseOrRun(world, node, "look", facts, rebuild) → { record: { ok: true, output: "…", reuse: { outcome: "reused", … } } }
 *   reuseOrRun(world, node, "answer", facts, rebuild) → undefined (it runs; its end says "`## answer` changed")
 */
import { explainChange, NO_TREE, type VisitIdentity } from "../identity/index.ts";
import { addressOf, type ReuseNote, type Usage } from "../runtime/index.ts";
import { redactText } from "../secrets/index.ts";
import type { FlowNode } from "../language/ast.ts";
import { recordedIdentity, type VisitFacts } from "./identify.ts";
import { takeWrote, treeChanged, treeFor, treeIs } from "./trees.ts";
import type { AskAnswer } from "./ports/index.ts";
import type { EndedVisit } from "./record.ts";
import { valueAt } from "./turn.ts";
import type { Frame, VisitRecord } from "./frames.ts";
import type { World } from "./world.ts";

/** What the walk asks an earlier run about one visit. */
export interface ReuseQuery {
	path: string;
	/** The node address (the path without `#n` and `[i]`): where a map's moved item is looked for. */
	address: string;
	node: string;
	kind: string;
	identity: VisitIdentity;
	/** Node ids whose values the visit reads. */
	depends: readonly string[];
}

/** What the earlier run says about a visit: its end to take, or what differs. */
export type ReuseAnswer =
	| {
			hit: true;
			ended: EndedVisit;
			path: string;
			life: number;
			saved: Usage;
			transcript?: { run: string; path: string; life: number };
			/** A question's answer as the person gave it there. */
			answer?: AskAnswer;
	  }
	| {
			hit: false;
			/** Words for a miss no part explains (it did not run there, it failed there). */
			why?: string;
			/** The parts that differ from the earlier visit `was`. */
			changed?: string[];
			was?: VisitIdentity;
			/** A plan goes on from the earlier end of a visit that would run (zero model calls). */
			pretend?: EndedVisit;
	  };

/** An earlier run a run reuses from. */
export interface ReuseSource {
	/** The run as a person names it (a run folder, a database run id). */
	readonly from: string;
	find(query: ReuseQuery): ReuseAnswer;
	/** A plan: nothing is written again and no turn plays; a visit that would run takes its earlier end. */
	readonly planning?: boolean;
	/** Told each visit's decision (the plan collects its rows from it). */
	decided?(query: ReuseQuery, note: ReuseNote, pretended: boolean): void;
}

/** How a plan names the tree after a visit that would run and may write: `unknown after <visit>`. */
export const UNKNOWN_TREE = "unknown after ";

/** Per run: each visit's facts until it ends, and the note a visit that ran ends with. */
interface Pending {
	facts: Map<string, VisitFacts>;
	notes: Map<string, ReuseNote>;
}

const PENDING = new WeakMap<object, Pending>();

function pendingOf(world: World): Pending {
	let p = PENDING.get(world.options);
	if (!p) PENDING.set(world.options, (p = { facts: new Map(), notes: new Map() }));
	return p;
}

/** A visit taken from the earlier run: its record, and a question's answer to journal beside it. */
export interface Reused {
	record: VisitRecord;
	answer?: AskAnswer;
}

/**
 * Journals the visit's identity, then asks the earlier run: the visit's record when it is reused (its
 * change to the tree written again), undefined when it runs (its end will say why). Without an earlier
 * run the answer is undefined at once, not a promise: the visit runs, and has nothing to wait for.
 */
export function reuseOrRun(
	world: World,
	node: FlowNode,
	visit: string,
	facts: VisitFacts,
	rebuild: (ended: EndedVisit) => VisitRecord,
): Promise<Reused | undefined> | undefined {
	const { identity } = facts;
	if (identity) world.recorder.identity?.(visit, identity);
	// Kept for the visit's end only when it may write: its change is then looked for (`settleVisit`).
	if (facts.mayWrite) pendingOf(world).facts.set(visit, facts);
	const source = world.options.reuse;
	// A source makes every visit's facts carry an identity (`identifies`).
	if (!source || !identity) return undefined;
	return askEarlierRun(world, node, visit, facts, source, identity, rebuild);
}

/** The earlier run's answer for a visit with an identity: its record to reuse, or undefined when it runs. */
async function askEarlierRun(
	world: World,
	node: FlowNode,
	visit: string,
	facts: VisitFacts,
	source: ReuseSource,
	identity: VisitIdentity,
	rebuild: (ended: EndedVisit) => VisitRecord,
): Promise<Reused | undefined> {
	const query: ReuseQuery = {
		path: visit,
		address: addressOf(visit),
		node: node.id.value,
		kind: node.kind,
		identity,
		depends: facts.depends,
	};
	if (facts.never) return ran(world, source, query, facts.never, []);
	const answer = source.find(query);
	if (answer.hit) {
		const effect = answer.ended.effect;
		const written = effect ? await writeAgain(world, source, facts, effect) : "nothing";
		if (typeof written === "string") {
			const note: ReuseNote = {
				outcome: "reused",
				from: source.from,
				path: answer.path,
				life: answer.life,
				saved: answer.saved,
				...(answer.transcript ? { transcript: answer.transcript } : {}),
				...(effect && written === "written" ? { reapplied: effect.files } : {}),
				...(effect && written === "there" ? { inTree: effect.files } : {}),
			};
			source.decided?.(query, note, false);
			return {
				record: { ...rebuild(answer.ended), reuse: note, ...(effect ? { effect } : {}) },
				...(answer.answer ? { answer: answer.answer } : {}),
			};
		}
		return ran(world, source, query, written.refused, ["tree"]);
	}
	const changed = answer.changed ?? [];
	const why =
		answer.why ??
		(answer.was
			? explainChange(changed, {
					node: node.id.value,
					was: answer.was,
					now: identity,
					...(changed.includes("tree") ? { treeFiles: await treeFiles(world, facts.cwd, answer.was, facts) } : {}),
				})
			: "it did not run in the earlier run");
	// A plan cannot know what a visit that runs would write: the tree is unknown from here on.
	if (source.planning && facts.mayWrite) treeIs(world, facts.cwd, `${UNKNOWN_TREE}${visit}`);
	if (source.planning && answer.pretend) {
		// The plan goes on as if the visit ended as it did there.
		const note: ReuseNote = { outcome: "ran", from: source.from, why, changed };
		source.decided?.(query, note, true);
		return { record: { ...rebuild(answer.pretend), reuse: note } };
	}
	return ran(world, source, query, why, changed);
}

/** The visit runs: its end will carry why. */
function ran(world: World, source: ReuseSource, query: ReuseQuery, why: string, changed: string[]): undefined {
	const note: ReuseNote = { outcome: "ran", from: source.from, why, changed };
	pendingOf(world).notes.set(query.path, note);
	source.decided?.(query, note, false);
	return undefined;
}

/** The files between the earlier visit's tree and this one's, when git still knows both. */
async function treeFiles(world: World, cwd: string, was: VisitIdentity, facts: VisitFacts): Promise<string[]> {
	const a = was.shown?.tree;
	const b = facts.identity?.shown?.tree;
	if (!a || !b || !world.options.git?.files) return [];
	const files = await world.options.git.files(cwd, a, b);
	return Array.isArray(files) ? files : [];
}

/**
 * Writes a reused visit's recorded change again: only onto the tree it was recorded on, and only when the
 * result is the tree it left (`written`); a tree that already is the one it left needs nothing (`there`).
 * Otherwise why the visit must run instead.
 */
async function writeAgain(
	world: World,
	source: ReuseSource,
	facts: VisitFacts,
	effect: NonNullable<EndedVisit["effect"]>,
): Promise<"written" | "there" | { refused: string }> {
	if (facts.tree === effect.after) return "there";
	if (facts.tree !== effect.before)
		return { refused: "it changed the tree, and its change was recorded on another tree than this one" };
	if (source.planning) {
		treeIs(world, facts.cwd, effect.after);
		return "written";
	}
	const git = world.options.git;
	if (!git?.apply) return { refused: "it changed the tree, and this run cannot write a recorded change (no git port)" };
	const applied = await git.apply(facts.cwd, effect);
	treeChanged(world);
	if (!applied.ok) return { refused: `its recorded change does not apply: ${applied.message}` };
	const now = await treeFor(world, facts.cwd);
	if (now === effect.after) return "written";
	await git.apply(facts.cwd, effect, true);
	treeChanged(world);
	return { refused: "its recorded change, written again, did not give the tree it recorded (it was taken back)" };
}

/**
 * The identity of a visit whose runner has none of its own (a block, a call, a commit: its run table entry
 * does not say `reuses`), journaled as it starts. A commit never reuses: with an earlier run, its end says so.
 */
export function identifyVisit(world: World, node: FlowNode, frame: Frame, visit: string): void {
	if (world.runners[node.kind].reuses) return;
	let message: string | undefined;
	if (node.kind === "commit" && node.message) {
		const v = valueAt(node.message, frame, world);
		message = v.ok && typeof v.value === "string" ? v.value : "";
	}
	world.recorder.identity?.(visit, recordedIdentity(world, node, message));
	const source = world.options.reuse;
	if (node.kind === "commit" && source) {
		const note: ReuseNote = { outcome: "ran", from: source.from, why: "`commit` nodes always run", changed: [] };
		pendingOf(world).notes.set(visit, note);
		const identity = recordedIdentity(world, node, message);
		source.decided?.(
			{ path: visit, address: addressOf(visit), node: node.id.value, kind: node.kind, identity, depends: [] },
			note,
			false,
		);
	}
}

/**
 * A visit's end with what reuse adds: why it ran, and the change it made to the tree (a visit that may
 * write and called a tool that writes, a check, a swarm), recorded as a pair of trees and their patch.
 * The record itself, not a promise, when there is no tree to look at: most visits have nothing to wait for.
 */
export function settleVisit(
	world: World,
	node: FlowNode,
	visit: string,
	record: VisitRecord,
): VisitRecord | Promise<VisitRecord> {
	// A run that keeps nothing for its visits (no visit that may write, no earlier run) asks nothing here.
	const pending = PENDING.get(world.options);
	const facts = pending?.facts.get(visit);
	const note = pending?.notes.get(visit);
	if (facts) pending?.facts.delete(visit);
	if (note) pending?.notes.delete(visit);
	const wrote = takeWrote(world, visit);
	const out = note && !record.reuse ? { ...record, reuse: note } : record;
	if (!facts?.mayWrite || !out.ok || out.reuse?.outcome === "reused" || world.options.reuse?.planning) return out;
	// Checks and swarms are not seen calling tools: what they changed is seen in the tree itself.
	const unseen = world.runners[node.kind].unseenWrites;
	if (!wrote && !unseen) return out;
	if (unseen) treeChanged(world);
	return withChange(world, facts, out);
}

/** The record with the change its visit made to the tree, when the tree changed. */
async function withChange(world: World, facts: VisitFacts, record: VisitRecord): Promise<VisitRecord> {
	let out = record;
	const after = await treeFor(world, facts.cwd);
	if (after === NO_TREE || facts.tree === NO_TREE || after === facts.tree) return out;
	const change = await world.options.git?.change?.(facts.cwd, facts.tree, after);
	// A patch that would carry a secret is not written to the journal: the change is then written again from
	// the pair of trees, which only this repository holds.
	const patch = change?.ok && change.patch && redactText(change.patch) === change.patch ? change.patch : undefined;
	if (change?.ok)
		out = { ...out, effect: { before: facts.tree, after, files: change.files, ...(patch ? { patch } : {}) } };
	return out;
}
