/**
 * The forecast `pi-flows plan` shows beside the worst case: what earlier runs of the same flow actually
 * spent, per node (median and max of tokens and cost per visit, and visits per run), and for a whole run.
 * Nothing is estimated: every figure comes from earlier runs' sealed journals (what their `usage.json`
 * holds, made again from the record the seal vouches for). A run folder whose seal does not check (one a
 * repository shipped, or one changed after the fact) is not this person's run and tells nothing: a clone
 * could otherwise make a plan promise any cost it likes.
 */
import { join } from "node:path";
import { addressOf } from "../runtime/index.ts";
import { readJournal } from "./journal.ts";
import { listRunFolders } from "./run-folder.ts";
import { runKey, verifyRun } from "./seal.ts";
import { readSnapshot } from "./snapshot.ts";
import { type UsageFile, usageOf } from "./usage-file.ts";

/** What earlier runs of one node spent. */
export interface NodeForecast {
	address: string;
	runs: number;
	visitsPerRun: { median: number; max: number };
	tokensPerVisit: { median: number; max: number };
	costPerVisit: { median: number; max: number };
}

/** The forecast of a flow from its earlier runs. */
export interface Forecast {
	runs: number;
	nodes: NodeForecast[];
	/** Per run: median and max of the runs' totals. */
	tokens: { median: number; max: number };
	cost: { median: number; max: number };
}

const median = (xs: number[]) => {
	if (!xs.length) return 0;
	const s = [...xs].sort((a, b) => a - b);
	const m = Math.floor(s.length / 2);
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stat = (xs: number[]) => ({ median: median(xs), max: xs.length ? Math.max(...xs) : 0 });

/** The forecast from the sealed runs of `flow` under `home` (`keyDir` holds the run key); undefined when there are none. */
export function forecastOf(home: string, flow: string, keyDir?: string): Forecast | undefined {
	const usages: UsageFile[] = [];
	const key = runKey(keyDir);
	if (!key.ok) return undefined;
	for (const dir of listRunFolders(home)) {
		const sealed = verifyRun(key.key, dir);
		if (!sealed.ok) continue;
		const snap = readSnapshot(dir, sealed.snapshot);
		if (!snap.ok || snap.value.flow.name !== flow) continue;
		const journal = readJournal(join(dir, "journal.jsonl"));
		const entries = journal.ok ? journal.entries.slice(0, sealed.lines) : [];
		// A run killed before it ended a life has nothing to tell about costs.
		if (entries.some((e) => e.type === "run_end")) usages.push(usageOf(entries, snap.value.settings.budget));
	}
	if (!usages.length) return undefined;
	const byNode = new Map<string, { visits: number[]; tokens: number[]; cost: number[] }>();
	for (const u of usages) {
		const perRun = new Map<string, number>();
		for (const v of u.visits) {
			if (v.kind !== "agent" && v.kind !== "swarm") continue;
			const address = addressOf(v.path);
			const n = byNode.get(address) ?? { visits: [], tokens: [], cost: [] };
			n.tokens.push(v.usage.totalTokens);
			n.cost.push(v.usage.cost);
			byNode.set(address, n);
			perRun.set(address, (perRun.get(address) ?? 0) + 1);
		}
		for (const [address, count] of perRun) byNode.get(address)?.visits.push(count);
	}
	return {
		runs: usages.length,
		nodes: [...byNode].map(([address, n]) => ({
			address,
			runs: n.visits.length,
			visitsPerRun: stat(n.visits),
			tokensPerVisit: stat(n.tokens),
			costPerVisit: stat(n.cost),
		})),
		tokens: stat(usages.map((u) => u.total.totalTokens)),
		cost: stat(usages.map((u) => u.total.cost)),
	};
}

/** The forecast as lines under the plan. */
export function showForecast(f: Forecast): string {
	const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
	const $ = (n: number) => `$${n.toFixed(4)}`;
	const lines = [
		`observed in ${f.runs} earlier run(s): a run spent ${k(f.tokens.median)} tokens (max ${k(f.tokens.max)}), ${$(f.cost.median)} (max ${$(f.cost.max)})`,
	];
	for (const n of f.nodes) {
		lines.push(
			`  ${n.address} · ${n.visitsPerRun.median} visit(s) per run (max ${n.visitsPerRun.max}) · ${k(n.tokensPerVisit.median)} tokens per visit (max ${k(n.tokensPerVisit.max)}) · ${$(n.costPerVisit.median)} (max ${$(n.costPerVisit.max)})`,
		);
	}
	return lines.join("\n");
}
