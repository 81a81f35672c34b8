/**
 * A review record of obligations. Three rules, enforced here rather than asked of a model: only the one
 * who raised an obligation may close it; an obligation nobody mentions stays open; nothing is rewritten
 * (a reworded obligation is a new one). Ids are short and stable (`o1`, `o2`).
 */
import type { Value } from "../language/types/index.ts";

/** One obligation. */
export interface Obligation {
	id: string;
	text: string;
	/** The node address that raised it (the only one that may close it). */
	raisedBy: string;
	/** The visit it was raised at. */
	raisedAt: string;
	closed?: { how: "addressed" | "withdrawn"; reason?: string; at: string };
}

/** What a verdict did to the ledger. */
export interface VerdictEffect {
	raised: Obligation[];
	closed: string[];
	/** Ids the verdict named that it may not close (unknown, or raised by another). */
	ignored: { id: string; why: string }[];
}

/** A ledger: one per loop (across iterations) or per map item. */
export interface Ledger {
	open(): Value;
	openObligations(): Obligation[];
	all(): Obligation[];
	apply(
		by: string,
		at: string,
		verdict: { resolved?: { id: string; how: "addressed" | "withdrawn"; reason?: string }[]; raised?: string[] },
	): VerdictEffect;
	/** Restores an obligation from a journal (resume). */
	restore(o: Obligation): void;
}

/** A new, empty ledger. */
export function createLedger(): Ledger {
	const items: Obligation[] = [];
	return {
		open: () => items.filter((o) => !o.closed).map((o) => ({ id: o.id, text: o.text })),
		openObligations: () => items.filter((o) => !o.closed),
		all: () => [...items],
		apply(by, at, verdict) {
			const effect: VerdictEffect = { raised: [], closed: [], ignored: [] };
			for (const r of verdict.resolved ?? []) {
				const o = items.find((x) => x.id === r.id);
				if (!o) effect.ignored.push({ id: r.id, why: "no such obligation" });
				else if (o.closed) effect.ignored.push({ id: r.id, why: "already closed" });
				else if (o.raisedBy !== by)
					effect.ignored.push({ id: r.id, why: `raised by ${o.raisedBy}; only it may close it` });
				else {
					o.closed = { how: r.how, ...(r.reason ? { reason: r.reason } : {}), at };
					effect.closed.push(o.id);
				}
			}
			for (const text of verdict.raised ?? []) {
				const t = text.trim();
				if (!t) continue;
				const o: Obligation = { id: `o${items.length + 1}`, text: t, raisedBy: by, raisedAt: at };
				items.push(o);
				effect.raised.push(o);
			}
			return effect;
		},
		restore(o) {
			const existing = items.findIndex((x) => x.id === o.id);
			if (existing >= 0) items[existing] = { ...o };
			else items.push({ ...o });
		},
	};
}
