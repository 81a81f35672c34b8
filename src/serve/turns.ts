/**
 * The turns in flight of a life, folded from its events in order: which visit each subagent plays, its
 * model, whether it waits or runs, its tool calls and the text of its latest message, and the requests
 * sent again after a transport fault. A turn leaves when its `turn_end` (or `turn_refused`) arrives;
 * the run's end clears them all. Pure: the events carry their times.
 */
import type { RecordedEvent } from "../report/index.ts";

/** One tool call as the page lists it: the tool and a line of its arguments. */
export interface ToolLine {
	tool: string;
	args: string;
}

/** A turn in flight. */
export interface TurnView {
	subagent: string;
	path: string;
	agent: string;
	model: string;
	state: "waiting" | "running";
	/** When it was asked for, or started (epoch ms). */
	since: number;
	/** The latest calls, newest last (at most {@link TOOLS_KEPT}), and how many there were. */
	tools: ToolLine[];
	toolCount: number;
	/** The latest assistant message, cut to {@link TEXT_KEPT} characters. */
	text?: string;
	retries?: { count: number; last: string };
}

/** Tool calls a turn keeps for the page. */
export const TOOLS_KEPT = 8;
/** Characters of a turn's latest message the page shows. */
export const TEXT_KEPT = 4000;

function argsLine(args: unknown): string {
	let text: string;
	try {
		text = typeof args === "string" ? args : (JSON.stringify(args) ?? "");
	} catch {
		text = String(args);
	}
	return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** The turns in flight after `events` (one life's, in order). */
export function turnsOf(events: readonly RecordedEvent[]): Record<string, TurnView> {
	const turns = new Map<string, TurnView>();
	for (const e of events) {
		const at = Date.parse(e.at);
		switch (e.type) {
			case "turn_wait":
			case "turn_start": {
				const before = turns.get(e.subagent);
				turns.set(e.subagent, {
					subagent: e.subagent,
					path: e.path,
					agent: e.agent,
					model: e.type === "turn_start" ? e.model : "",
					state: e.type === "turn_start" ? "running" : "waiting",
					since: Number.isNaN(at) ? 0 : at,
					tools: before && before.path === e.path ? before.tools : [],
					toolCount: before && before.path === e.path ? before.toolCount : 0,
				});
				break;
			}
			case "tool_call": {
				const t = turns.get(e.subagent);
				if (!t) break;
				t.tools = [...t.tools, { tool: e.tool, args: argsLine(e.args) }].slice(-TOOLS_KEPT);
				t.toolCount++;
				break;
			}
			case "message": {
				const t = turns.get(e.subagent);
				if (t) t.text = e.text.length > TEXT_KEPT ? `${e.text.slice(0, TEXT_KEPT)}…` : e.text;
				break;
			}
			case "provider_retry": {
				const t = turns.get(e.subagent);
				if (t)
					t.retries = {
						count: (t.retries?.count ?? 0) + 1,
						last: `${e.reason}: ${e.message} (retry in ${(e.delayMs / 1000).toFixed(1)}s)`,
					};
				break;
			}
			case "turn_end":
			case "turn_refused":
				turns.delete(e.subagent);
				break;
			case "run_end":
				turns.clear();
				break;
		}
	}
	return Object.fromEntries(turns);
}
