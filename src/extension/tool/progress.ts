/**
 * A `subagent` call's progress as rows, one per subagent turn: who, on which model, running or how it
 * ended, the tools it used, its tokens and time. Both event streams fold into the same rows (a pool's
 * workflow events for agents, tasks and chains; a flow's events for flows), so the call, its partial
 * updates and its result draw alike whatever the mode.
 */
import type { FlowEvent } from "../../runtime/index.ts";
import { addUsage, emptyUsage, type Usage } from "../../runtime/index.ts";
import type { WorkflowEvent } from "../../runtime/index.ts";

/** One subagent turn, as the person follows it. */
export interface ProgressRow {
	/** The subagent's id (or the turn's label when it never spawned). */
	id: string;
	/** The turn's label: a visit path in a flow, `scout#1` or a step name otherwise. */
	label: string;
	agent: string;
	model: string;
	state: "running" | "done" | "failed";
	tools: string[];
	usage?: Usage;
	/** Wall time of an ended turn. */
	ms?: number;
	startedAt: number;
	error?: string;
}

/** Rows in the order their turns started, so a row never jumps while the person reads it. */
export class Progress {
	readonly rows: ProgressRow[] = [];
	private readonly byId = new Map<string, ProgressRow>();

	/** Folds an event of either stream; `now` is its time. Returns whether anything changed. */
	fold(event: WorkflowEvent | FlowEvent, now: number): boolean {
		switch (event.type) {
			case "turn_start": {
				const label = "label" in event ? event.label : event.path;
				const row: ProgressRow = {
					id: event.subagent,
					label,
					agent: event.agent,
					model: event.model,
					state: "running",
					tools: [],
					startedAt: now,
				};
				this.byId.set(event.subagent, row);
				this.rows.push(row);
				return true;
			}
			case "tool_call": {
				const row = this.byId.get(event.subagent);
				row?.tools.push(event.tool);
				return row !== undefined;
			}
			case "turn_end": {
				const row = this.byId.get(event.subagent);
				if (!row) return false;
				row.state = event.ok ? "done" : "failed";
				row.usage = event.usage;
				row.ms = event.usage.ms || now - row.startedAt;
				const error = (event as { error?: string }).error;
				if (error) row.error = error;
				return true;
			}
			case "refused":
				this.rows.push({
					id: event.label,
					label: event.label,
					agent: event.agent,
					model: "",
					state: "failed",
					tools: [],
					startedAt: now,
					ms: 0,
					error: event.error,
				});
				return true;
			default:
				return false;
		}
	}

	/** Every ended turn's usage, summed; `ms` is the busy time. */
	usage(): Usage {
		return addUsage(emptyUsage(), ...this.rows.map((r) => r.usage ?? emptyUsage()));
	}

	/** A copy safe to hand to pi as details (pi keeps details; later folds must not change them). */
	snapshot(): ProgressRow[] {
		return this.rows.map((r) => ({ ...r, tools: [...r.tools] }));
	}
}

/** pi's `Usage` shape, so the session's totals include what the subagents spent. */
export { piUsage } from "../../pi/index.ts";
