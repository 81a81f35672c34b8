/**
 * `usage.json`: what a run cost, per visit, per node address and per life, from pi's counters only. A
 * visit repeated across lives is listed twice, because it was paid twice.
 */
import { join } from "node:path";
import { addUsage, emptyUsage, type Usage } from "../runtime/usage.ts";
import { writeAtomic } from "./files.ts";
import type { JournalEntry } from "./journal.ts";

/** One paid visit. */
export interface PaidVisit {
	path: string;
	node: string;
	kind: string;
	life: number;
	ok: boolean;
	usage: Usage;
}

/** The whole file. */
export interface UsageFile {
	visits: PaidVisit[];
	nodes: Record<string, { visits: number; usage: Usage }>;
	lives: { life: number; startedAt: string; usage: Usage; end: "ok" | "failed" | "interrupted" }[];
	total: Usage;
}

/** The address of a visit path: `deliver#2/work[1]/code` → `deliver/work/code`. */
export function addressOf(path: string): string {
	return path.replace(/#\d+/g, "").replace(/\[\d+\]/g, "");
}

/** Builds usage.json from the journal; leaf visits (agents, swarms) carry the spending. */
export function usageOf(entries: readonly JournalEntry[]): UsageFile {
	const visits: PaidVisit[] = [];
	const lives = new Map<number, UsageFile["lives"][number]>();
	for (const e of entries) {
		if (e.type === "life_start") lives.set(e.life, { life: e.life, startedAt: e.at, usage: emptyUsage(), end: "interrupted" });
		else if (e.type === "visit_end") {
			visits.push({ path: e.path, node: e.node, kind: e.kind, life: e.life, ok: e.ended.ok, usage: e.usage });
		} else if (e.type === "run_end") {
			const l = lives.get(e.life);
			if (l) l.end = e.ok ? "ok" : "failed";
		}
	}
	// Blocks sum their children; counting only leaves keeps the totals from counting a turn twice.
	const leaves = visits.filter((v) => v.kind === "agent" || v.kind === "swarm");
	const nodes: UsageFile["nodes"] = {};
	for (const v of leaves) {
		const key = addressOf(v.path);
		const n = (nodes[key] ??= { visits: 0, usage: emptyUsage() });
		n.visits++;
		n.usage = addUsage(n.usage, v.usage);
		const l = lives.get(v.life);
		if (l) l.usage = addUsage(l.usage, v.usage);
	}
	return { visits, nodes, lives: [...lives.values()], total: addUsage(...leaves.map((v) => v.usage)) };
}

/** Writes usage.json. */
export function writeUsage(runDir: string, entries: readonly JournalEntry[]): UsageFile {
	const usage = usageOf(entries);
	writeAtomic(join(runDir, "usage.json"), `${JSON.stringify(usage, null, 2)}\n`);
	return usage;
}
