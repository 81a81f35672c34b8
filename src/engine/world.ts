/**
 * What a run works with: the spawn port, the models resolved before the run, the ports to the world
 * (questions, checks, git), the run's signal and deadlines, and the event sink. One world per run; the
 * walk reads it and never reaches past it.
 */
import type { RunTable } from "./kind.ts";
import type { HandoffPolicy } from "../handoff/index.ts";
import type { EventSink, Failure, FlowEvent, ModelRequest } from "../runtime/index.ts";
import type { Spawn } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { Value } from "../language/types/index.ts";
import type { FlowResult } from "./run.ts";
import type { Budget, BudgetGauge } from "./budget.ts";
import type { Replay, RunRecorder } from "./record.ts";
import type { ReuseSource } from "./reuse.ts";
import type { NodeModel } from "./models.ts";
import type { AskPort, CheckPort, Clock, GitPort, TreeSnapshot } from "./ports/index.ts";
import type { VisitRecord } from "./frames.ts";

/** Options of one run. */
export interface RunOptions {
	spawn: Spawn;
	/** Each agent node's model, resolved before the run (see `resolveModels`). */
	models: ReadonlyMap<string, NodeModel>;
	cwd: string;
	signal?: AbortSignal;
	/** Replaces every agent attempt's bound (`--timeout`); default: node, flow, then 30 minutes. */
	timeoutMs?: number;
	/** A turn with no event for this long is aborted as kind `idle`. Default: 5 minutes. */
	idleTimeoutMs?: number;
	onEvent?: EventSink;
	/** Where questions go; without one, nobody is there. */
	ask?: AskPort;
	/** Runs `check:` scripts. */
	check?: CheckPort;
	/** Commits, diffs and copies. */
	git?: GitPort;
	/** What a `wait` sleeps on; default: the system clock. A dry run and a flow test pass an instant one. */
	clock?: Clock;
	/** Base of the retry backoff: attempt n waits base × 2^(n-1), at most 30s. Default 1000. */
	retryBackoffMs?: number;
	/** Snapshotted check scripts by path (read once at the run stage). */
	scripts?: ReadonlyMap<string, string>;
	/** Limits for the whole run (flow `budget:` merged with launch flags by the caller). */
	budget?: Budget;
	/** Spending of earlier lives, counted against the budget on resume. */
	spentBefore?: { tokens: number; cost: number; turns: number };
	/** Where shared (`memory:`) subagents keep their pi sessions, so a resumed pair keeps its conversation. */
	sessionsDir?: string;
	/** Observers that may add to a turn's task and emit events of their own (the chain's handoffs). */
	plugins?: RunPlugin[];
	/** Where the run's facts go (the journal). */
	recorder?: RunRecorder;
	/** The journal of earlier lives, for a resume: ended visits are replayed, not re-run. */
	replay?: Replay;
	/**
	 * The handoff protocol's switch, reset cap and defaults (see `resolveHandoffPolicy`); default: on,
	 * with the documented defaults. The CLI and the extension resolve it from env and settings files.
	 */
	handoff?: HandoffPolicy;
	/**
	 * Runs one part of the run only: the visits under this item (`review[3]`, a map's third item). Visits
	 * outside it are replayed when they ended, and left to whoever runs them when not; the visits above it
	 * (the map, the blocks around it) are walked to rebuild the item's frame but never recorded. A worker
	 * of a distributed backend runs an item this way, so the walk stays the one walk.
	 */
	focus?: string;
	/** Where a map's items run; default: here. A distributed backend places them on its workers. */
	items?: ItemPlacement;
	/**
	 * An earlier run to reuse from (`--reuse`): a visit whose identity equals one of its finished, ok
	 * visits is not played, its end copied (docs/runs.md, "Reuse"). Default: every visit plays.
	 */
	reuse?: ReuseSource;
	/** The built-in tools' schemas by name, as the host declares them, for visits' identities (`tools`). */
	toolSchemas?: (names: readonly string[]) => Readonly<Record<string, unknown>>;
	/** Paths the tree of a visit's identity leaves out besides the flow's definitions (the runs folder). */
	leaveOut?: readonly string[];
	/**
	 * Emit `request_start`, `request_end` and `tool_end` for every model request and tool call: asked by an
	 * observer that draws them (a recording trace); off, no request is wrapped and nothing more is said.
	 */
	requestEvents?: boolean;
}

/**
 * Where a map's items run. The walk asks before it runs an item's body; once `place` resolves, the item's
 * ended visits are in the run's replay, so the body that follows replays them (and runs here whatever did
 * not end elsewhere: a stopped turn, a worker that gave up). The walk never learns where the turns ran.
 */
export interface ItemPlacement {
	/** Runs item `item` (`review[3]`) of the map `map` elsewhere and waits for it to end. */
	place(map: string, item: string, signal: AbortSignal): Promise<void>;
}

/** A visit a focused run leaves to whoever runs it: a stop, so nothing records it and no block absorbs it. */
export const ELSEWHERE: VisitRecord = { ok: false, error: { kind: "stopped", message: "runs elsewhere" } };

/** Where `visit` stands to the run's focus: inside it, above it (a block holding it), or outside it. */
export function focusOf(visit: string, focus: string | undefined): "inside" | "above" | "outside" {
	if (focus === undefined || visit === focus || visit.startsWith(`${focus}/`)) return "inside";
	if (focus.startsWith(visit) && "/[#".includes(focus.charAt(visit.length))) return "above";
	return "outside";
}

/** Something that watches a run and may speak into it: it sees every event, may emit its own, and may add text to a node's task. */
export interface RunPlugin {
	onEvent?(event: FlowEvent, emit: EventSink): void;
	/** Text appended to the task of the agent node `nodeId`'s visit. */
	taskAddendum?(nodeId: string, visit: string): string | undefined;
	/** Reads the run's result once more before it is returned (a chain with failed steps failed). */
	settle?(result: FlowResult): FlowResult;
}

/** The run's world, as the walk sees it. */
export interface World {
	readonly flow: CheckedFlow;
	/** The run half of every kind (`kinds/run.ts`), handed in by the run's entry. */
	readonly runners: RunTable;
	readonly options: RunOptions;
	readonly input: Value;
	readonly emit: EventSink;
	/**
	 * Whether anyone but the run's result hears its events (an `onEvent`, a plugin's). The events only they
	 * read (a node's start, a turn's wait, start and end, a message, a tool call) are not made for nobody:
	 * a library run without a listener would build half a dozen objects a turn to throw away.
	 */
	readonly hears: boolean;
	/** Adds a turn's usage to the run's total. */
	spend(usage: Usage): void;
	/** The run's total so far (a copy). */
	spent(): Usage;
	/**
	 * Time a turn was held for a person (`Result.heldMs`): each visit around it leaves it out of its own
	 * time, as it counts its usage. Optional: a world without it keeps wall time.
	 */
	hold?(ms: number): void;
	/** What the tree changed since HEAD, for a node that reads `diff` ("" when there is no git port). */
	diff(cwd: string): Promise<string>;
	/** Where the run's facts go; a no-op recorder when nothing is journaled. */
	readonly recorder: RunRecorder;
	/** The run's budget. */
	readonly budget: BudgetGauge;
	/** Subagents in a turn right now, told to land when the budget runs out. */
	readonly running: Set<{ steer?: (text: string) => Promise<void> }>;
	/** The branch the run commits on, once opened. */
	branch?: string;
	/** The tree the run started from, when its flow commits (run/start-tree.ts). */
	startTree?: TreeSnapshot;
	/** Slug of the run's branch. */
	readonly slug: string;
	/** Model keys of this flow's nodes start with this (`spec/` inside the call `spec`). */
	readonly prefix: string;
}

/** How long a turn may show no sign of life. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/** The bound of a retry's wait. */
export const MAX_BACKOFF_MS = 30_000;

/** A stop of the run is `stopped`; a cut by a fail-fast sibling is `cancelled`. */
export function stopKind(world: World, signal: AbortSignal): Failure<"stopped" | "cancelled"> {
	if (world.options.signal?.aborted) return { kind: "stopped", message: "the run was stopped" };
	if (signal.aborted) return { kind: "cancelled", message: "cut by a failing sibling (fail-fast)" };
	return { kind: "stopped", message: "stopped" };
}

/**
 * One model request of a visit's session as the visit's `request_start` or `request_end` event (what a
 * recording trace draws as a `chat` span), told apart from the visit's other sessions by `subagent`.
 */
export function emitRequest(world: World, path: string, agent: string, subagent: string, r: ModelRequest): void {
	if (r.phase === "start")
		world.emit({
			type: "request_start",
			path,
			agent,
			subagent,
			provider: r.provider,
			model: r.model,
			server: r.server,
		});
	else {
		const { phase: _end, ...end } = r;
		world.emit({ ...end, type: "request_end", path, agent, subagent });
	}
}
