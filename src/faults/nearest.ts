/**
 * Did-you-mean by TypeScript's thresholds (`getSpellingSuggestion`): a candidate must be within
 * max(2, 0.34·n) in length and at most 0.4·n edits away (and never more than two edits, as our catalogue
 * promises); names under three characters only match by case. Otherwise nothing is suggested: a wrong
 * guess is worse than none.
 */
import { distance } from "fastest-levenshtein";

/** The candidate nearest to `name`, or undefined when none is close enough to be worth saying. */
export function nearest(name: string, candidates: Iterable<string>, maxEdits = 2): string | undefined {
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	const n = name.length;
	const lengthSlack = Math.max(2, Math.floor(n * 0.34));
	const editLimit = Math.min(maxEdits, Math.max(1, Math.floor(n * 0.4)));
	for (const candidate of candidates) {
		if (candidate === name) continue;
		if (Math.abs(candidate.length - n) > lengthSlack) continue;
		if (n < 3 || candidate.length < 3) {
			if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
			continue;
		}
		if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
		const d = distance(name.toLowerCase(), candidate.toLowerCase());
		if (d <= editLimit && d < bestDistance) {
			best = candidate;
			bestDistance = d;
		}
	}
	return best;
}

/** Candidates sorted by edit distance, for messages that list what exists ("known: a, b, c"). */
export function byCloseness(name: string, candidates: Iterable<string>, limit = 5): string[] {
	return [...candidates]
		.map((c) => ({ c, d: distance(name.toLowerCase(), c.toLowerCase()) }))
		.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
		.slice(0, limit)
		.map((x) => x.c);
}

/**
 * The models nearest to a name pi could not resolve, as `provider/id`, for "unknown model" faults. A model
 * id is matched whole and word by word (`sonet` finds `claude-sonnet-4-5` through `sonnet`), and an id
 * holding the name as it is comes first, so the list reads like what the person was reaching for.
 */
export function nearestModels(name: string, refs: Iterable<string>, limit = 3): string[] {
	const q = name.toLowerCase().replace(/:[a-z]+$/, "");
	if (q === "") return [];
	// Two edits cover a swapped pair (`opsu`), the commonest slip in a short name.
	const slack = Math.max(2, Math.floor(q.length / 3));
	const scored: { ref: string; d: number }[] = [];
	for (const ref of refs) {
		const full = ref.toLowerCase();
		const id = full.slice(full.indexOf("/") + 1);
		const words = id.split(/[-/.:_]/).filter(Boolean);
		const d = full.includes(q) ? 0 : Math.min(distance(q, full), distance(q, id), ...words.map((w) => distance(q, w)));
		if (d <= slack) scored.push({ ref, d });
	}
	return scored
		.sort((a, b) => a.d - b.d || a.ref.length - b.ref.length || a.ref.localeCompare(b.ref))
		.slice(0, limit)
		.map((x) => x.ref);
}

/** How a miss names what exists when nothing is near: which things, and where a person lists them all. */
export interface MissOptions {
	/** The things, plural: "flows", "agents", "keys", "flags". */
	what: string;
	/** Where to look when there are too many to list: "`pi-flows flows` lists them". */
	where: string;
	/** Listed in full up to this many. Default 8. */
	listUpTo?: number;
}

/**
 * The one rule for the sentence after a miss, everywhere (agents, flows, keys, flags): "Did you mean `x`?"
 * only for a candidate {@link nearest} accepts; otherwise the candidates when they are few, or where to
 * look when they are many. A far name is never offered as if it were near.
 */
export function missHint(
	name: string,
	candidates: Iterable<string>,
	options: MissOptions,
): { text: string; near?: string } {
	const all = [...new Set(candidates)];
	const near = nearest(name, all);
	if (near) return { text: ` Did you mean \`${near}\`?`, near };
	if (all.length === 0) return { text: ` There are no ${options.what}.` };
	if (all.length <= (options.listUpTo ?? 8))
		return { text: ` The ${options.what} are: ${[...all].sort().join(", ")}.` };
	return { text: ` There are ${all.length} ${options.what}; ${options.where}.` };
}
