/**
 * The live view's state: a fold of the run's events that reads no clock (the time of each event is
 * passed in), so a test replays a run's events and gets the frame a person saw. Display is an observer:
 * nothing here can change the run.
 */
import type { Budget } from "../../runtime/index.ts";
import type { FlowEvent, ReuseNote } from "../../runtime/index.ts";
import { addressOf, addUsage, emptyUsage, type Usage } from "../../runtime/index.ts";

/** One visit of a node (a loop or a map visits a node several times; each has its own row data). */
export interface VisitState {
	path: string;
	/** The node address the visit belongs to (`deliver/work/code` for `deliver#2/work[1]/code`). */
	address: string;
	node: string;
	kind: string;
	agent?: string;
	state: "running" | "done" | "failed";
	startedAt: number;
	endedAt?: number;
	usage?: Usage;
	error?: string;
	/** With `--reuse`: taken from the earlier run, or why it ran. */
	reuse?: ReuseNote;
	/** Milliseconds it was held for a person (a `/step` pause), as its end says: left out of its clock. */
	held?: number;
}

/** A turn in flight, kept until it ends so its clock and tools can be drawn. */
export interface TurnState {
	subagent: string;
	path: string;
	agent: string;
	model: string;
	/** Waiting (for a `/step` pause, a shared session, a slot) has no clock; a turn's clock starts when it does. */
	state: "waiting" | "running";
	/** When the turn started; the time it was asked for while it waits. */
	startedAt: number;
	/** Tool calls so far, in order. */
	tools: string[];
	/** Requests of this turn sent again after a transport fault, and the last one's reason. */
	retries?: { count: number; last: string };
}

/** Everything the live view draws. */
export interface LiveState {
	flow: string;
	startedAt: number;
	endedAt?: number;
	ok?: boolean;
	visits: Map<string, VisitState>;
	/** Running turns by subagent id. */
	turns: Map<string, TurnState>;
	/** Summed over ended turns. */
	spent: Usage;
	turnsEnded: number;
	/** Budget warnings and the like, newest last. */
	notes: string[];
	/** The run's budget and what counted against it, when it has one. */
	budget?: { limits: Budget; spent: { tokens: number; cost: number; turns: number } };
	/** Model requests sent again after a transport fault, over the run. */
	retries?: number;
}

/** The state before the first event, so the view can draw the flow's tree at once. */
export function startLive(flow: string, now: number): LiveState {
	return { flow, startedAt: now, visits: new Map(), turns: new Map(), spent: emptyUsage(), turnsEnded: 0, notes: [] };
}

/** What a visit's start and end both say about it. */
function visitOf(event: { path: string; node: string; kind: string; agent?: string }) {
	return {
		path: event.path,
		address: addressOf(event.path),
		node: event.node,
		kind: event.kind,
		...(event.agent ? { agent: event.agent } : {}),
	};
}

/** Folds one event into `state` (in place, and returned for chaining). */
export function foldLive(state: LiveState, event: FlowEvent, now: number): LiveState {
	switch (event.type) {
		case "run_start":
			state.startedAt = now;
			if (event.budget) state.budget = { limits: event.budget, spent: { tokens: 0, cost: 0, turns: 0 } };
			break;
		case "budget_spend":
			if (state.budget) state.budget.spent = { tokens: event.tokens, cost: event.cost, turns: event.turns };
			break;
		case "node_start":
			state.visits.set(event.path, { ...visitOf(event), state: "running", startedAt: now });
			break;
		case "node_end": {
			const before = state.visits.get(event.path);
			state.visits.set(event.path, {
				...visitOf(event),
				state: event.ok ? "done" : "failed",
				startedAt: before?.startedAt ?? now,
				endedAt: now,
				usage: event.usage,
				...(event.error ? { error: event.error } : {}),
				...(event.reuse ? { reuse: event.reuse } : {}),
				...(event.held ? { held: event.held } : {}),
			});
			break;
		}
		case "turn_wait":
			state.turns.set(event.subagent, {
				subagent: event.subagent,
				path: event.path,
				agent: event.agent,
				model: "",
				state: "waiting",
				startedAt: now,
				tools: [],
			});
			break;
		case "turn_start":
			state.turns.set(event.subagent, {
				subagent: event.subagent,
				path: event.path,
				agent: event.agent,
				model: event.model,
				state: "running",
				startedAt: now,
				tools: [],
			});
			break;
		case "turn_refused":
			state.turns.delete(event.subagent);
			break;
		case "turn_end":
			state.turns.delete(event.subagent);
			state.spent = addUsage(state.spent, { ...event.usage, ms: 0 });
			state.turnsEnded++;
			break;
		case "tool_call":
			state.turns.get(event.subagent)?.tools.push(event.tool);
			break;
		case "provider_retry": {
			state.retries = (state.retries ?? 0) + 1;
			const turn = state.turns.get(event.subagent);
			const why = `${event.reason}, retry in ${(event.delayMs / 1000).toFixed(1)}s`;
			if (turn) turn.retries = { count: (turn.retries?.count ?? 0) + 1, last: why };
			state.notes.push(`provider retry: ${event.path} ${why} (attempt ${event.attempt + 1})`);
			break;
		}
		case "run_end":
			state.endedAt = now;
			state.ok = event.ok;
			state.turns.clear();
			break;
		default:
			noteOf(state, event);
	}
	return state;
}

/** Events this view does not draw as rows (budget notices, kinds added later) become notes when they say something. */
function noteOf(state: LiveState, event: { type: string }): void {
	const said = (event as { spent?: unknown; reason?: unknown }).reason ?? (event as { spent?: unknown }).spent;
	if (typeof said === "string") state.notes.push(`${event.type.replace(/_/g, " ")}: ${said}`);
}
