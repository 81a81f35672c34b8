/**
 * The run half of each node kind: how one visit runs, and what a dry run does instead. It lives apart from
 * the kind modules (`kinds/`) because running loads the evaluator, its ports and pi's sessions, and the
 * checker, the language server and `pi-flows check` must not. Like the language registry, the table is
 * typed over the `FlowNode` union: a kind without its runner does not compile.
 *
 * The engine imports no kind (a kind's runner calls back into the walk), so this door is also where a run
 * starts: `runFlow` is the engine's run bound to this table, and the rest of the tree calls it.
 *
 * A dry run is the same walk on dry ports (`dry.ts`), so a kind's runner does not change for it; `dry` says
 * what the kind does under them, in the words of docs/runs.md's table (a test holds the two together).
 */
import type { RunTable, VisitEnd } from "../engine/kind.ts";
import type { VisitRecord } from "../engine/frames.ts";
import { type FlowResult, runFlowWith } from "../engine/run.ts";
import type { RunOptions } from "../engine/world.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { Value } from "../language/types/index.ts";
import { runAgent } from "./agent/run.ts";
import { runAsk } from "./ask/run.ts";
import { runCheck } from "./check/run.ts";
import { runChoice } from "./choice/run.ts";
import { runCommit } from "./commit/run.ts";
import { runCall } from "./flow/run.ts";
import { runLoop } from "./loop/run.ts";
import { runMap } from "./map/run.ts";
import { runParallel } from "./parallel/run.ts";
import { runSwarm } from "./swarm/run.ts";
import { runWait } from "./wait/run.ts";

export type { KindRunner, RunTable, VisitEnd } from "../engine/kind.ts";

/** A visit's record as its runner's end. */
const asEnd = (record: VisitRecord): VisitEnd => ({ record });

/**
 * Every kind's runner; the type names every kind of the union. The walk imports no runner: `runFlow` below
 * hands this table to the run's entry (`engine/run.ts`), which hands it on as `World.runners`, so a block
 * running its body back through the walk closes no circle of imports.
 */
export const RUNNERS = {
	agent: {
		// Chained rather than awaited: every turn of a run comes through here, and an await costs more.
		run: (world, node, frame, visit, signal) => runAgent(world, node, frame, visit, signal).then(asEnd),
		dry: "answers from the script, else with a value made up from its output type (through its own `submit` tool) or a placeholder text; skips, and says so, what only a model's turn can meet (`mustCallTool`; a scripted text answer where `submit` is due gets a sample)",
		reuses: true,
		unseenWrites: false,
	},
	choice: {
		run: (world, node, frame, visit, signal) => runChoice(world, node, frame, visit, signal),
		dry: "runs the first case whose condition holds on the made-up values",
		reuses: false,
		unseenWrites: false,
	},
	parallel: {
		run: (world, node, frame, visit, signal) => runParallel(world, node, frame, visit, signal),
		dry: "runs every branch; copies land without git",
		reuses: false,
		unseenWrites: false,
	},
	map: {
		run: (world, node, frame, visit, signal) => runMap(world, node, frame, visit, signal),
		dry: "runs its body per item of its list, or of the made-up list it reads",
		reuses: false,
		unseenWrites: false,
	},
	loop: {
		run: (world, node, frame, visit, signal) => runLoop(world, node, frame, visit, signal),
		dry: "repeats its body until its condition holds on the made-up values, at most `max` times",
		reuses: false,
		unseenWrites: false,
	},
	check: {
		run: async (world, node, frame, visit, signal) => ({ record: await runCheck(world, node, visit, signal, frame) }),
		dry: "passes without running the script",
		reuses: true,
		unseenWrites: true,
	},
	commit: {
		run: async (world, node, frame) => ({ record: await runCommit(world, node, frame) }),
		dry: "commits nothing: git is not run",
		reuses: false,
		unseenWrites: false,
	},
	ask: {
		run: async (world, node, frame, visit, signal) => ({ record: await runAsk(world, node, frame, visit, signal) }),
		dry: "takes its default (or its `enough`), else its first option, yes, or an empty answer",
		reuses: true,
		unseenWrites: false,
	},
	flow: {
		run: (world, node, frame, visit, signal) => runCall(world, node, frame, visit, signal),
		dry: "runs the callee dry",
		reuses: false,
		unseenWrites: false,
	},
	swarm: {
		run: async (world, node, frame, visit, signal) => ({ record: await runSwarm(world, node, frame, visit, signal) }),
		dry: "its members' turns answer as agent turns do in a dry run",
		reuses: true,
		unseenWrites: true,
	},
	wait: {
		run: async (world, node, frame, visit, signal) => ({ record: await runWait(world, node, frame, visit, signal) }),
		dry: "does not sleep: the dry clock moves on at once by the duration it names",
		reuses: false,
		unseenWrites: false,
	},
} satisfies RunTable;

/**
 * Runs a checked flow on `input` with every kind's runner: the engine's `runFlowWith` bound to
 * {@link RUNNERS}. The library exports it as `runFlow`, and every caller in the tree starts a run here.
 */
export function runFlow(flow: CheckedFlow, input: Value, options: RunOptions): Promise<FlowResult> {
	return runFlowWith(RUNNERS, flow, input, options);
}
