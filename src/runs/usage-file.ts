/**
 * `usage.json`: what a run cost, per visit, per node address and per life, from pi's counters only. A
 * visit repeated across lives is listed twice, because it was paid twice.
 */
import { join } from "node:path";
import { LANGUAGE } from "../kinds/language.ts";
import type { Budget } from "../runtime/index.ts";
import { addressOf, addUsage, emptyUsage, type Usage } from "../runtime/index.ts";
import { writeJsonAtomic } from "./files.ts";
import type { JournalEntry } from "./journal.ts";

/** One paid visit. */
export interface PaidVisit {
	path: string;
	node: string;
	kind: string;
	life: number;
	ok: boolean;
	usage: Usage;
	/** Taken from an earlier run (`--reuse`): what it spent there. Its `usage` here is 0. */
	saved?: Usage;
}

/**
 * The run's budget beside its spend: the limits, what counted against them (every life), and each node
 * address's and each visit path's share of the binding limit (tokens when a token limit is set, else
 * cost), so a reader sees where the budget went.
 */
export interface BudgetUse {
	limits: Budget;
	spent: { tokens: number; cost: number; turns: number };
	/** Share (0..1+) of the token limit, else the cost limit, by node address; absent with a turns-only budget. */
	nodes?: Record<string, number>;
	/** The same by visit path. */
	paths?: Record<string, number>;
}

/** The whole file. */
export interface UsageFile {
	visits: PaidVisit[];
	nodes: Record<string, { visits: number; usage: Usage }>;
	lives: { life: number; startedAt: string; usage: Usage; end: "ok" | "failed" | "interrupted" }[];
	total: Usage;
	/** Present when the run had a budget. */
	budget?: BudgetUse;
	/** What the visits taken from an earlier run had spent there (`--reuse`); absent when none was. */
	saved?: Usage;
}

/** Builds usage.json from the journal; leaf visits (agents, swarms) carry the spending. */
export function usageOf(entries: readonly JournalEntry[], budget?: Budget): UsageFile {
	const visits: PaidVisit[] = [];
	const lives = new Map<number, UsageFile["lives"][number]>();
	for (const e of entries) {
		if (e.type === "life_start")
			lives.set(e.life, { life: e.life, startedAt: e.at, usage: emptyUsage(), end: "interrupted" });
		else if (e.type === "visit_end") {
			const r = e.ended.reuse;
			visits.push({
				path: e.path,
				node: e.node,
				kind: e.kind,
				life: e.life,
				ok: e.ended.ok,
				usage: e.usage,
				...(r?.outcome === "reused" ? { saved: r.saved } : {}),
			});
		} else if (e.type === "run_end") {
			const l = lives.get(e.life);
			if (l) l.end = e.ok ? "ok" : "failed";
		}
	}
	// Blocks sum their children; counting only leaves keeps the totals from counting a turn twice.
	const leaves = visits.filter((v) => LANGUAGE.modelTurns.has(v.kind));
	const nodes: UsageFile["nodes"] = {};
	for (const v of leaves) {
		const key = addressOf(v.path);
		const n = (nodes[key] ??= { visits: 0, usage: emptyUsage() });
		n.visits++;
		n.usage = addUsage(n.usage, v.usage);
		const l = lives.get(v.life);
		if (l) l.usage = addUsage(l.usage, v.usage);
	}
	const total = addUsage(...leaves.map((v) => v.usage));
	const reused = leaves.filter((v) => v.saved);
	return {
		visits,
		nodes,
		lives: [...lives.values()],
		total,
		...(reused.length ? { saved: addUsage(...reused.map((v) => v.saved as Usage)) } : {}),
		...(budget ? { budget: budgetUse(budget, total, leaves, nodes) } : {}),
	};
}

function budgetUse(limits: Budget, total: Usage, leaves: readonly PaidVisit[], nodes: UsageFile["nodes"]): BudgetUse {
	// A turn is a leaf visit's ask that reached the model; the journal keeps visits, so a visit that asked counts one.
	const spent = {
		tokens: total.totalTokens,
		cost: total.cost,
		turns: leaves.filter((v) => v.usage.requests > 0).length,
	};
	const of: ((u: Usage) => number) | undefined =
		limits.tokens !== undefined
			? (u) => u.totalTokens / (limits.tokens as number)
			: limits.cost !== undefined
				? (u) => u.cost / (limits.cost as number)
				: undefined;
	if (!of) return { limits, spent };
	const paths: Record<string, number> = {};
	for (const v of leaves) paths[v.path] = (paths[v.path] ?? 0) + of(v.usage);
	return { limits, spent, nodes: Object.fromEntries(Object.entries(nodes).map(([a, n]) => [a, of(n.usage)])), paths };
}

/** Writes usage.json. */
export function writeUsage(runDir: string, entries: readonly JournalEntry[], budget?: Budget): UsageFile {
	const usage = usageOf(entries, budget);
	writeJsonAtomic(join(runDir, "usage.json"), usage);
	return usage;
}
