/**
 * An earlier run as a reuse source: its journal read into the visits a new run may take, by path and by
 * node address. A visit is taken only when it ended ok (never a failure, a cut, an in-doubt or a
 * budget-stopped visit, which have no standing end) and its identity equals the new visit's; a question
 * only when a person answered it. Every other visit gets the reason it cannot be, in words.
 *
 *   reuseSource(entries, "/p/.pi/runs/2026-…-explore").find({ path: "look", identity, … })
 *     → { hit: true, ended: { ok: true, output: "…" }, saved: { totalTokens: 1234, … }, … }
 *     | { hit: false, changed: ["section"], was: { … } }
 */
import type { AskAnswer, EndedVisit, ReuseAnswer, ReuseQuery, ReuseSource } from "../engine/index.ts";
import { changedParts, type VisitIdentity } from "../identity/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import type { JournalEntry } from "../runs/index.ts";
import { addressOf, type Usage } from "../runtime/index.ts";

/** One ended visit of the earlier run, with its identity and what it spent. */
export interface EarlierVisit {
	path: string;
	address: string;
	node: string;
	kind: string;
	life: number;
	ended: EndedVisit;
	usage: Usage;
	identity?: VisitIdentity;
	answer?: AskAnswer;
}

/** The ended visits of a journal, the last end of each path winning (a resumed run's later life). */
export function earlierVisits(entries: readonly JournalEntry[]): Map<string, EarlierVisit> {
	const identities = new Map<string, { life: number; identity: VisitIdentity }>();
	const answers = new Map<string, AskAnswer>();
	const visits = new Map<string, EarlierVisit>();
	for (const e of entries) {
		if (e.type === "identity") identities.set(e.path, { life: e.life, identity: e.identity });
		else if (e.type === "asked") answers.set(e.path, e.answer);
		else if (e.type === "visit_end") {
			const id = identities.get(e.path);
			const answer = answers.get(e.path);
			visits.set(e.path, {
				path: e.path,
				address: addressOf(e.path),
				node: e.node,
				kind: e.kind,
				life: e.life,
				ended: e.ended,
				usage: e.usage,
				...(id && id.life === e.life ? { identity: id.identity } : {}),
				...(answer ? { answer } : {}),
			});
		}
	}
	return visits;
}

/** What the visit spent when it was played: through a chain of reuse, the first run's spending. */
export function spentBy(v: EarlierVisit): Usage {
	return v.ended.reuse?.outcome === "reused" ? v.ended.reuse.saved : v.usage;
}

/** Why an earlier visit that matches cannot be taken, or undefined when it can. */
function refusal(v: EarlierVisit): string | undefined {
	if (!v.ended.ok)
		return `it failed in the earlier run (${v.ended.error?.kind ?? "failed"}: ${v.ended.error?.message ?? ""})`;
	if (v.kind === "commit") return "`commit` nodes always run";
	if (v.kind === "ask" && v.answer && v.answer.kind !== "answer" && v.answer.kind !== "enough")
		return "nobody answered it in the earlier run (it took its default)";
	if (!v.identity) return "the earlier run recorded no identity for it (an older pi-flows made it)";
	return undefined;
}

/** Options of a source. */
export interface SourceOptions {
	/** A plan: nothing is written again, and a visit that would run goes on from its earlier end. */
	planning?: boolean;
	/** Told each decision (the plan's rows). */
	decided?: ReuseSource["decided"];
	/**
	 * Node addresses to play again whatever their identity (`deliver/review`, or a block's address for
	 * everything in it): "rerun from this node". What reads them is then decided by what they answer.
	 */
	force?: readonly string[];
}

/**
 * A reuse source over an earlier run's journal entries. `from` names the run as the new run's journal
 * will (a run folder's path, a database run id); transcripts are found there.
 */
export function reuseSource(
	entries: readonly JournalEntry[],
	from: string,
	options: SourceOptions = {},
): ReuseSource & { visits: ReadonlyMap<string, EarlierVisit> } {
	const visits = earlierVisits(entries);
	const byAddress = new Map<string, EarlierVisit[]>();
	for (const v of visits.values()) byAddress.set(v.address, [...(byAddress.get(v.address) ?? []), v]);
	// An earlier visit taken by another path (a map item that moved) is taken once before it is taken again.
	const taken = new Set<string>();
	const take = (v: EarlierVisit): ReuseAnswer => {
		taken.add(v.path);
		// The earlier run's pauses for a person are not this run's.
		const { reuse: earlier, held: _held, ...ended } = v.ended;
		const transcript =
			earlier?.outcome === "reused" && earlier.transcript
				? earlier.transcript
				: { run: from, path: v.path, life: v.life };
		return {
			hit: true,
			ended,
			path: v.path,
			life: v.life,
			saved: spentBy(v),
			...(LANGUAGE.modelTurns.has(v.kind) ? { transcript } : {}),
			...(v.answer ? { answer: v.answer } : {}),
		};
	};
	const fits = (v: EarlierVisit, q: ReuseQuery) =>
		v.kind === q.kind && refusal(v) === undefined && (v.identity?.key === q.identity.key || inTree(v, q));
	return {
		from,
		visits,
		...(options.planning ? { planning: true } : {}),
		...(options.decided ? { decided: options.decided } : {}),
		find(q) {
			const same = visits.get(q.path);
			const forced = options.force?.find((a) => q.address === a || q.address.startsWith(`${a}/`));
			if (forced !== undefined)
				return {
					hit: false,
					why: `asked to run again (\`${forced}\`)`,
					...(same?.ended.ok ? { pretend: stripped(same.ended) } : {}),
				};
			if (same && fits(same, q)) return take(same);
			const moved = (byAddress.get(q.address) ?? []).filter((v) => v.path !== q.path && fits(v, q));
			const other = moved.find((v) => !taken.has(v.path)) ?? moved[0];
			if (other) return take(other);
			const pretend = same?.ended.ok ? { pretend: stripped(same.ended) } : {};
			if (same && same.kind === q.kind) {
				const why = refusal(same);
				if (why) return { hit: false, why, ...pretend };
				return {
					hit: false,
					changed: changedParts(same.identity as VisitIdentity, q.identity),
					was: same.identity,
					...pretend,
				};
			}
			const near = nearest(byAddress.get(q.address) ?? [], q);
			if (near?.identity) return { hit: false, changed: changedParts(near.identity, q.identity), was: near.identity };
			return { hit: false, why: "it did not run in the earlier run" };
		},
	};
}

/**
 * A visit that changed the tree, asked again on the very tree it left: only the tree differs, and the
 * change is already there, so nothing is left to do (the walk writes nothing again).
 */
function inTree(v: EarlierVisit, q: ReuseQuery): boolean {
	const after = v.ended.effect?.after;
	if (!after || !v.identity || after !== q.identity.shown?.tree) return false;
	const changed = changedParts(v.identity, q.identity);
	return changed.length === 1 && changed[0] === "tree";
}

/** The earlier visit of the same node that differs from the query in the fewest parts. */
function nearest(list: readonly EarlierVisit[], q: ReuseQuery): EarlierVisit | undefined {
	let best: { v: EarlierVisit; n: number } | undefined;
	for (const v of list) {
		if (!v.identity || v.kind !== q.kind) continue;
		const n = changedParts(v.identity, q.identity).length;
		if (!best || n < best.n) best = { v, n };
	}
	return best?.v;
}

function stripped(ended: EndedVisit): EndedVisit {
	const { reuse: _reuse, ...rest } = ended;
	return rest;
}
