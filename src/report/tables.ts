/**
 * The report's tables of spending: per node address and per life from `usage.json` (its figures as
 * written, so the page and the file never disagree), and every visit in a folded table for the reader who
 * wants each one's cost.
 */
import type { Usage } from "../runtime/index.ts";
import type { JournalEntry, UsageFile } from "../runs/index.ts";
import { clip, clock, cost, esc, ms, shown, tokens } from "./format.ts";
import type { LifeSpan } from "./model.ts";

const HEAD = ["input", "output", "cache read", "cache write", "total tokens", "cost", "requests", "tool calls", "time"];

/** The usage columns of one row; `data-col` names each cell so tests read figures without guessing positions. */
function cells(u: Usage): string {
	const values: [string, string][] = [
		["input", tokens(u.input)],
		["output", tokens(u.output)],
		["cacheRead", tokens(u.cacheRead)],
		["cacheWrite", tokens(u.cacheWrite)],
		["totalTokens", tokens(u.totalTokens)],
		["cost", cost(u.cost)],
		["requests", tokens(u.requests)],
		["toolCalls", tokens(u.toolCalls)],
		["ms", ms(u.ms)],
	];
	return values.map(([col, text]) => `<td class="num" data-col="${col}">${esc(text)}</td>`).join("");
}

/**
 * Per node address: the agent and swarm turns that carry the spending (blocks sum their children, so
 * they would count each turn twice), then the run's total. Time is busy time, summed over visits.
 */
export function usageTable(usage: UsageFile, fromFile: boolean): string {
	// With a budget, each node's share of it: where the budget went.
	const shares = usage.budget?.nodes;
	const share = (n: number | undefined) =>
		shares ? `<td class="num" data-col="budget">${esc(percent(n ?? 0))}</td>` : "";
	const rows = Object.entries(usage.nodes).map(
		([address, n]) =>
			`<tr class="node-usage" data-node="${esc(address)}"><th scope="row">${esc(address)}</th><td class="num" data-col="visits">${esc(n.visits)}</td>${cells(n.usage)}${share(shares?.[address])}</tr>`,
	);
	const visits = Object.values(usage.nodes).reduce((s, n) => s + n.visits, 0);
	const totalShare = shares ? Object.values(shares).reduce((s, x) => s + x, 0) : undefined;
	return [
		fromFile
			? ""
			: `<p class="note">usage.json is missing (the run never ended a life); these figures were rebuilt from the journal.</p>`,
		`<table class="usage"><thead><tr><th>node</th><th>visits</th>${HEAD.map((h) => `<th>${h}</th>`).join("")}${shares ? "<th>of budget</th>" : ""}</tr></thead>`,
		`<tbody>${rows.join("\n") || `<tr><td colspan="${HEAD.length + 2}">No agent turn was paid for.</td></tr>`}</tbody>`,
		`<tfoot><tr class="total"><th scope="row">total</th><td class="num" data-col="visits">${esc(visits)}</td>${cells(usage.total)}${share(totalShare)}</tr></tfoot></table>`,
	].join("\n");
}

function percent(x: number): string {
	return `${Math.round(x * 100)}%`;
}

/** Per life: when it started, how it ended, what it spent and how long it ran (wall time, from its events). */
export function livesTable(usage: UsageFile, lives: readonly LifeSpan[]): string {
	const span = new Map(lives.map((l) => [l.life, l]));
	const numbers = new Set([...usage.lives.map((l) => l.life), ...lives.map((l) => l.life)]);
	const rows = [...numbers]
		.sort((a, b) => a - b)
		.map((n) => {
			const u = usage.lives.find((l) => l.life === n);
			const l = span.get(n);
			const outcome = l?.outcome ?? u?.end ?? "interrupted";
			return `<tr class="life-row" data-life="${esc(n)}"><th scope="row">${esc(n)}</th><td>${esc(clock(u?.startedAt ?? (l ? new Date(l.start).toISOString() : "")))}</td><td class="outcome-${esc(outcome)}">${esc(outcome)}</td><td class="num">${esc(u ? tokens(u.usage.totalTokens) : "")}</td><td class="num">${esc(u ? cost(u.usage.cost) : "")}</td><td class="num">${esc(l ? ms(l.end - l.start) : "")}</td><td>${esc(l?.error ?? "")}</td></tr>`;
		});
	return `<table class="lives"><thead><tr><th>life</th><th>started</th><th>ended</th><th>tokens</th><th>cost</th><th>wall time</th><th>error</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

/**
 * Every visit that ended, blocks included, in the order they ended, with the start of its output or its
 * error from the journal; folded, since a long run has hundreds.
 */
export function visitsTable(usage: UsageFile, journal: readonly JournalEntry[]): string {
	const ends = new Map<string, string>();
	for (const e of journal) {
		if (e.type !== "visit_end") continue;
		ends.set(
			`${e.life}\u0000${e.path}`,
			e.ended.error ? `${e.ended.error.kind}: ${e.ended.error.message}` : shown(e.ended.output),
		);
	}
	const rows = usage.visits.map(
		(v) =>
			`<tr class="${v.ok ? "ok" : "failed"}" data-path="${esc(v.path)}" data-life="${esc(v.life)}"><td>${esc(v.path)}</td><td>${esc(v.kind)}</td><td class="num">${esc(v.life)}</td><td>${v.ok ? "ok" : "failed"}</td>${cells(v.usage)}<td class="out"><code>${esc(clip(ends.get(`${v.life}\u0000${v.path}`) ?? "", 400))}</code></td></tr>`,
	);
	return [
		`<details class="visits"><summary>Every visit that ended (${usage.visits.length}): usage, then the output or the error; blocks include their children's usage</summary>`,
		`<table><thead><tr><th>visit</th><th>kind</th><th>life</th><th>ended</th>${HEAD.map((h) => `<th>${h}</th>`).join("")}<th>output or error</th></tr></thead>`,
		`<tbody>${rows.join("\n")}</tbody></table></details>`,
	].join("\n");
}
