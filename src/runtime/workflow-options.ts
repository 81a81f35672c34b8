/**
 * What every workflow accepts, with the same names and defaults everywhere, so a caller learns them once
 * and a flow node maps onto any combinator without translating options.
 */
import type { TurnBudget } from "./budget.ts";
import type { AskOptions, Spawn } from "./subagent.ts";
import type { WorkflowEvent } from "./workflow-events.ts";

/**
 * How long a subagent lives. `"task"`: one turn, then closed, so no turn sees another's conversation.
 * `"workflow"`: one subagent per pool key, kept until the workflow ends, so it can build on what it said.
 */
export type Lifetime = "task" | "workflow";

/** Options shared by every combinator and by {@link SubagentPool}. */
export interface WorkflowOptions {
	/** The project folder every subagent works in. */
	cwd: string;
	/** Creates subagents. Injected, never imported, so every workflow runs offline in tests. */
	spawn: Spawn;
	/** Default: `"task"` (and `"workflow"` for `swarm`, whose members must remember the last round). */
	lifetime?: Lifetime;
	/** Reaches every turn; aborting it refuses new turns, cuts running ones and closes every session. */
	signal?: AbortSignal;
	/**
	 * Per-turn deadline in milliseconds. No default: the library does not get to decide that a legitimate
	 * task took too long. Set one on anything unattended.
	 */
	timeoutMs?: number;
	/**
	 * Puts EVERY subagent on this model (`provider/id`), whatever its agent file pins: an override, not a
	 * default, so a sweep across models never measures a mixture. Default: each agent's own model.
	 */
	model?: string;
	/** Observes the run; a listener that throws is ignored. */
	onEvent?: (event: WorkflowEvent) => void;
	/**
	 * Prefixes every turn's label (`<path>/<key>#<n>`), so a flow evaluator can key a script or a journal
	 * by the visit a workflow runs in. Default: none.
	 */
	path?: string;
	/** The subagent this workflow runs under (see `delegateTool`), reported on `spawn` events. */
	parentId?: string;
	/** The handoff watermark every turn of the workflow gets (see `AskOptions.watermark`). Default: none. */
	watermark?: AskOptions["watermark"];
	/**
	 * Binds every turn of the workflow (make one with `budgetGauge`, and pass the same gauge to several
	 * workflows to bind them together): a turn starts only while there is room, and counts as it ends.
	 * Default: none.
	 */
	budget?: TurnBudget;
}
