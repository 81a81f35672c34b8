/**
 * The live view as lines: the flow's node tree with a state glyph per node (● running, ✓ done, ✗ failed,
 * ○ not yet), each running turn under its node with agent, model, clock and tools (a turn that waits for
 * a `/step` pause or a shared session is `◌ … waiting`, with no clock), and a header whose
 * clock and token counts move while the run goes. A pure function of the state, the tree and `now`.
 *
 *   ● explore · 14s · 2 turns · ↑3.1k ↓420
 *   ✓ look · map · 3 visits · 9s · ↑2.4k ↓310
 *     ✓ scout · scout · 3 visits · ↑2.4k ↓310
 *   ● answer · synthesiser · 5s
 *     ▸ answer · synthesiser · anthropic/claude-sonnet-4-5 · 5s · read
 */
import { allNodes, childrenOf, type CheckedFlow, type FlowNode } from "../../language/index.ts";
import { addressOf, addUsage, emptyUsage, formatTokens } from "../../runtime/index.ts";
import type { LiveState, TurnState, VisitState } from "./fold.ts";
import { clock, summariseTools, tokens } from "../format.ts";

export { clock, summariseTools, tokens };

/** One row of the static tree: a node address and how it is named, before any visit. */
export interface TreeRow {
	depth: number;
	address: string;
	id: string;
	/** The agent's name, or the node kind. */
	what: string;
}

/** Options of a frame; the terminal and RPC clients have different room. */
export interface FrameOptions {
	/** Most rows under the header; the rest are cut around what is running. Default 16. */
	maxRows?: number;
	/** A last line, e.g. how to stop. */
	footer?: string;
	/**
	 * The visit whose turn ended and that waits for the person (`/step`), and since when: drawn as ended,
	 * its clock stopped there, its turn row gone. Once it ends, its `node_end` says how long it was held.
	 */
	waiting?: { path: string; since: number };
}

/** The flow's nodes, depth first, in file order: the rows exist before anything runs, so the view shows what is to come. */
export function treeOf(flow: CheckedFlow): TreeRow[] {
	const rows: TreeRow[] = [];
	const walk = (nodes: readonly FlowNode[], depth: number) => {
		for (const node of nodes) {
			const what =
				node.kind === "agent" ? (node.agent?.value ?? `agent from ${node.agentFrom?.text ?? "?"}`) : node.kind;
			rows.push({ depth, address: node.path, id: node.id.value, what });
			walk(childrenOf(node), depth + 1);
		}
	};
	walk(flow.nodes, 0);
	return rows.length
		? rows
		: allNodes(flow.nodes).map((n) => ({ depth: 0, address: n.path, id: n.id.value, what: n.kind }));
}

/** The frame at `now`; `now` is passed in so a test replays a run and gets the frame a person saw. */
export function showLive(
	state: LiveState,
	tree: readonly TreeRow[],
	now: number,
	options: FrameOptions = {},
): string[] {
	const waiting = options.waiting;
	// A visit waiting for the person has ended its turn: it is drawn ended at the moment it started to wait.
	const visits = [...state.visits.values()].map((v) =>
		v.path === waiting?.path && v.state === "running" ? { ...v, state: "done" as const, endedAt: waiting.since } : v,
	);
	const rounds = currentRounds(visits);
	const turns = [...state.turns.values()].filter((t) => t.path !== waiting?.path);
	const rows = withCallees(tree, visits);
	const body: { line: string; running: boolean }[] = [];
	for (const row of rows) {
		// Inside a loop, only the round under way counts: round 1's ✓ is not this round's.
		const mine = visits.filter((v) => v.address === row.address && inCurrentRound(v.path, rounds));
		const indent = "  ".repeat(row.depth);
		const round = rounds.get(row.address);
		body.push({
			line: `${indent}${glyphOf(mine)} ${row.id} · ${row.what}${round && round > 1 ? ` · round ${round}` : ""}${factsOf(mine, now)}`,
			running: mine.some((v) => v.state === "running"),
		});
		for (const turn of turns.filter((t) => addressOf(t.path) === row.address)) {
			body.push({
				line: `${indent}  ${turn.state === "waiting" ? "◌" : "▸"} ${turnLine(turn, now)}`,
				running: turn.state === "running",
			});
		}
	}
	const header = `${state.endedAt === undefined ? "●" : state.ok ? "✓" : "✗"} ${state.flow} · ${clock((state.endedAt ?? now) - state.startedAt)} · ${state.turnsEnded} turn${state.turnsEnded === 1 ? "" : "s"}${tokens(state.spent)}${budgetText(state)}${state.retries ? ` · ${state.retries} provider retr${state.retries === 1 ? "y" : "ies"}` : ""}`;
	const lines = [header, ...clip(body, options.maxRows ?? 16), ...state.notes.slice(-2).map((n) => `! ${n}`)];
	if (options.footer) lines.push(options.footer);
	return lines;
}

/** ` · budget 4.8k/4k tokens, $0.02/$0.50`: each limit beside what counted against it. */
function budgetText(state: LiveState): string {
	const b = state.budget;
	if (!b) return "";
	const parts: string[] = [];
	if (b.limits.tokens !== undefined)
		parts.push(`${formatTokens(b.spent.tokens)}/${formatTokens(b.limits.tokens)} tokens`);
	if (b.limits.cost !== undefined) parts.push(`$${b.spent.cost.toFixed(2)}/$${b.limits.cost.toFixed(2)}`);
	if (b.limits.turns !== undefined) parts.push(`${b.spent.turns}/${b.limits.turns} turns`);
	return parts.length ? ` · budget ${parts.join(", ")}` : "";
}

function glyphOf(visits: readonly VisitState[]): string {
	if (visits.length === 0) return "○";
	if (visits.some((v) => v.state === "running")) return "●";
	// The visit that ended last says how the node stands: a loop's failed try mended by the next is done.
	const latest = visits.reduce((a, b) => ((b.endedAt ?? 0) >= (a.endedAt ?? 0) ? b : a));
	return latest.state === "failed" ? "✗" : "✓";
}

/** A visit path's innermost loop round: the path before its last `#n`, and n (`fix#2/code` → fix, 2). */
function roundOf(path: string): { loop: string; round: number } | undefined {
	const m = /^(.*)#(\d+)(?:\/[^#]*)?$/.exec(path);
	return m ? { loop: m[1], round: Number(m[2]) } : undefined;
}

/** Each loop visit's (`fix`, `deliver#2/work[1]/pair`) newest round seen so far. */
function currentRounds(visits: readonly VisitState[]): Map<string, number> {
	const rounds = new Map<string, number>();
	for (const v of visits) {
		const r = roundOf(v.path);
		if (r && r.round > (rounds.get(r.loop) ?? 0)) rounds.set(r.loop, r.round);
	}
	return rounds;
}

function inCurrentRound(path: string, rounds: ReadonlyMap<string, number>): boolean {
	const r = roundOf(path);
	return !r || rounds.get(r.loop) === r.round;
}

function factsOf(visits: readonly VisitState[], now: number): string {
	if (visits.length === 0) return "";
	const facts: string[] = [];
	const running = visits.filter((v) => v.state === "running").length;
	if (visits.length > 1)
		facts.push(running ? `${visits.length - running}/${visits.length} ended` : `${visits.length} visits`);
	const first = Math.min(...visits.map((v) => v.startedAt));
	const last = running ? now : Math.max(...visits.map((v) => v.endedAt ?? now));
	// A /step pause is the person's time, not the node's.
	const paused = visits.reduce((sum, v) => sum + (v.held ?? 0), 0);
	facts.push(clock(Math.max(0, last - first - paused)));
	const spent = addUsage(emptyUsage(), ...visits.map((v) => v.usage ?? emptyUsage()));
	const failed = [...visits].reverse().find((v) => v.state === "failed");
	return ` · ${facts.join(" · ")}${tokens(spent)}${reuseOf(visits)}${failed?.error && !running ? ` · ${cut(failed.error, 80)}` : ""}`;
}

/**
 * What reuse decided for a node's visits: ` · reused (saved 1.2k tokens)`, ` · 11 of 12 reused`, a
 * question's ` · answer reused (the same question)`, and why the last one that ran did.
 */
function reuseOf(visits: readonly VisitState[]): string {
	const decided = visits.filter((v) => v.reuse);
	if (!decided.length) return "";
	const reused = decided.filter((v) => v.reuse?.outcome === "reused");
	const saved = reused.reduce((n, v) => n + (v.reuse?.outcome === "reused" ? v.reuse.saved.totalTokens : 0), 0);
	const parts: string[] = [];
	if (reused.length && reused.every((v) => v.kind === "ask")) parts.push("answer reused (the same question)");
	else if (reused.length)
		parts.push(
			`${reused.length === decided.length ? "reused" : `${reused.length} of ${decided.length} reused`}${saved ? ` (saved ${formatTokens(saved)} tokens)` : ""}`,
		);
	const ran = [...decided].reverse().find((v) => v.reuse?.outcome === "ran");
	if (ran?.reuse?.outcome === "ran") parts.push(`ran: ${cut(ran.reuse.why, 80)}`);
	return parts.length ? ` · ${parts.join(" · ")}` : "";
}

function turnLine(turn: TurnState, now: number): string {
	if (turn.state === "waiting") return `${turn.path} · ${turn.agent} · waiting`;
	const tools = turn.tools.length ? ` · ${summariseTools(turn.tools)}` : "";
	const retries = turn.retries ? ` · ↻${turn.retries.count} (${turn.retries.last})` : "";
	return `${turn.path} · ${turn.agent} · ${turn.model} · ${clock(now - turn.startedAt)}${tools}${retries}`;
}

/** The tree plus rows for visits it does not hold (nodes of called flows), each under its caller. */
function withCallees(tree: readonly TreeRow[], visits: readonly VisitState[]): TreeRow[] {
	const rows = [...tree];
	const known = new Set(rows.map((r) => r.address));
	for (const v of visits) {
		if (known.has(v.address)) continue;
		known.add(v.address);
		let at = -1;
		for (let i = 0; i < rows.length; i++)
			if (v.address.startsWith(`${rows[i].address}/`) && (at < 0 || rows[i].address.length >= rows[at].address.length))
				at = i;
		const depth = at < 0 ? 0 : rows[at].depth + 1;
		let end = at + 1;
		while (at >= 0 && end < rows.length && rows[end].depth > rows[at].depth) end++;
		rows.splice(at < 0 ? rows.length : end, 0, { depth, address: v.address, id: v.node, what: v.agent ?? v.kind });
	}
	return rows;
}

/** At most `max` lines, cut above and below the first running line, each cut saying what it hides. */
function clip(body: readonly { line: string; running: boolean }[], max: number): string[] {
	if (body.length <= max) return body.map((b) => b.line);
	const focus = Math.max(
		0,
		body.findIndex((b) => b.running),
	);
	const room = max - 2;
	let start = Math.min(Math.max(0, focus - 2), body.length - room);
	let end = start + room;
	// A cut at one end only needs one marker line; the other goes to a row.
	if (start === 0) end++;
	else if (end === body.length) start--;
	const out = body.slice(start, end).map((b) => b.line);
	if (start > 0) out.unshift(`  … ${start} above`);
	if (end < body.length) out.push(`  … ${body.length - end} below`);
	return out;
}

function cut(text: string, n: number): string {
	const one = text.replace(/\s+/g, " ");
	return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
