/**
 * Stage 4, run: walks a checked flow in a world. Every subagent a visit opens is closed in a `finally`
 * (whoever opens, closes); a failure is a value naming the visit it started at; a stop closes everything
 * and says `stopped`.
 *
 *   input:  CheckedFlow explore, input "what is this?", { spawn, models, cwd }
 *   output: { ok: true, output: "<answer>", visits: [...], usage }
 */
import type { FailureKind } from "../runtime/index.ts";
import type { EventSink, FlowEvent } from "../runtime/index.ts";
import { addCounters, emptyUsage, type Usage } from "../runtime/index.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { Value } from "../language/types/index.ts";
import type { ReuseNote } from "../runtime/index.ts";
import { NO_RECORD } from "./record.ts";
import { budgetedSpawn, budgetGauge, LAND_THE_PLANE } from "./budget.ts";
import { type Frame, rootMemory } from "./frames.ts";
import { recordRunStart } from "./start-tree.ts";
import { runSequence } from "./walk.ts";
import type { RunTable } from "./kind.ts";
import type { RunOptions, RunPlugin, World } from "./world.ts";
import { type Absorbed, absorbedOf } from "./absorbed.ts";

/** How one visit ended, as reports list them. */
export interface VisitOutcome {
	path: string;
	node: string;
	kind: string;
	agent?: string;
	ok: boolean;
	output?: unknown;
	/** `kind: message` of a failed visit. */
	error?: string;
	errorKind?: FailureKind;
	usage: Usage;
	/** With `--reuse`: taken from the earlier run, or why it ran. */
	reuse?: ReuseNote;
}

/** How a run ended. */
export interface FlowResult {
	flow: string;
	ok: boolean;
	/** The last root node's output: text, or a typed value. */
	output: Value | string;
	/**
	 * A failed run's `Failure` spelled flat, as `result.json` and the journal's `run_end` keep it:
	 * `visit: kind: message` (the visit being where the failure started) and the kind it surfaced with.
	 */
	error?: string;
	errorKind?: FailureKind;
	/** The visit the failure started at. */
	failedAt?: string;
	/** Every visit that ended, in the order they ended. */
	visits: VisitOutcome[];
	/** Summed over every turn of the run (nested and parallel ones too); `ms` is the run's wall time. */
	usage: Usage;
	/** Failed visits `on-fail: continue` absorbed: the run went on past them. Absent when none. */
	absorbed?: Absorbed;
}

/**
 * A run's events, heard by its sink and its plugins, each that ends a visit kept as a visit of the result. A
 * class with a bound method rather than a closure made per run: V8 keeps a closure's optimized code only
 * while an instance of it lives, so a closure made per run was compiled again after every full collection.
 */
class RunEvents {
	readonly visits: VisitOutcome[] = [];
	readonly sink: EventSink;
	readonly plugins: readonly RunPlugin[];
	/** `hear`, bound: what the world emits through, and what plugins are handed to emit their own. */
	readonly emit: (event: FlowEvent) => void;
	constructor(sink: EventSink, plugins: readonly RunPlugin[]) {
		this.sink = sink;
		this.plugins = plugins;
		this.emit = this.hear.bind(this);
	}

	hear(event: FlowEvent): void {
		if (event.type === "node_end") {
			// Field by field, in this order (the result's JSON keeps it): every visit ends here.
			const v: VisitOutcome = {
				path: event.path,
				node: event.node,
				kind: event.kind,
				ok: event.ok,
				usage: event.usage,
			};
			if (event.agent) v.agent = event.agent;
			if (event.output !== undefined) v.output = event.output;
			if (event.error) v.error = event.error;
			if (event.errorKind) v.errorKind = event.errorKind;
			if (event.reuse) v.reuse = event.reuse;
			this.visits.push(v);
		}
		this.sink(event);
		for (const p of this.plugins) p.onEvent?.(event, this.emit);
	}
}

/**
 * Runs a checked flow on `input`, each visit by its kind's runner in `runners` (`RUNNERS` of
 * `src/kinds/run.ts`). The table is handed in because the kinds' runners call back into the engine (a
 * block runs its body through the walk): an engine that imported them would tie the two folders in a
 * circle. The rest of the tree calls `runFlow` of `src/kinds/run.ts`, this bound to that table.
 */
export async function runFlowWith(
	runners: RunTable,
	flow: CheckedFlow,
	input: Value,
	options: RunOptions,
): Promise<FlowResult> {
	const started = performance.now();
	const plugins = options.plugins ?? [];
	const events = new RunEvents(options.onEvent ?? (() => {}), plugins);
	const { visits, emit } = events;
	const spent = emptyUsage();
	const running = new Set<{ steer?: (text: string) => Promise<void> }>();
	const budget = budgetGauge(options.budget, options.spentBefore, {
		warned: (spentText) => emit({ type: "budget_warning", spent: spentText }),
		exhausted: (reason) => {
			emit({ type: "budget_exhausted", reason });
			for (const sub of running) void sub.steer?.(LAND_THE_PLANE);
		},
		unpriced: (model, note) => emit({ type: "budget_unpriced", model, reason: note }),
		counted: (used) => emit({ type: "budget_spend", ...used }),
	});
	const world: World = {
		flow,
		runners,
		// Every turn of the tree reaches a model through this spawn, so every turn is gated and counted here.
		options: { ...options, spawn: budgetedSpawn(options.spawn, budget, running) },
		input,
		emit,
		hears: options.onEvent !== undefined || plugins.some((p) => p.onEvent !== undefined),
		prefix: "",
		slug: slugOf(input),
		budget,
		running,
		// The run's total; the budget counts through the spawn, as each turn ends.
		spend: addCounters.bind(undefined, spent),
		spent: () => ({ ...spent }),
		diff: async (cwd) => {
			if (!options.git) return "";
			const d = await options.git.diff(cwd);
			return d.ok ? d.text : `(the diff is unavailable: ${d.message})`;
		},
		recorder: options.recorder ?? NO_RECORD,
	};
	emit({
		type: "run_start",
		flow: flow.name.value,
		input: typeof input === "string" ? input : JSON.stringify(input),
		at: Date.now(),
		...(options.budget ? { budget: options.budget } : {}),
	});
	await recordRunStart(world);
	const root: Frame = { records: new Map(), prefix: "", cwd: options.cwd };
	const controller = new AbortController();
	const onStop = () => controller.abort(options.signal?.reason);
	if (options.signal?.aborted) controller.abort(options.signal.reason);
	options.signal?.addEventListener("abort", onStop, { once: true });
	let end: Awaited<ReturnType<typeof runSequence>>;
	try {
		end = await runSequence(world, flow.nodes, root, controller.signal);
	} finally {
		options.signal?.removeEventListener("abort", onStop);
		for (const close of rootMemory(root).closers.splice(0)) await close().catch(() => {});
	}
	const usage = { ...spent, ms: performance.now() - started };
	const failure = end.ok ? undefined : end.failure?.error;
	let result: FlowResult = {
		flow: flow.name.value,
		ok: end.ok,
		output: end.ok ? (end.last?.output ?? "") : "",
		visits,
		usage,
		// A child failure already says where it started and why; the block it surfaced at adds nothing.
		...(failure
			? {
					error:
						failure.kind === "child"
							? failure.message
							: `${end.surfacedAt ?? end.failedAt}: ${failure.kind}: ${failure.message}`,
					errorKind: failure.kind,
					failedAt: end.failedAt,
				}
			: {}),
	};
	const absorbed = absorbedOf(flow.kinds.leaves, visits, result.failedAt);
	if (absorbed) result.absorbed = absorbed;
	for (const p of plugins) if (p.settle) result = p.settle(result);
	emit({
		type: "run_end",
		flow: flow.name.value,
		ok: result.ok,
		usage,
		...(result.error ? { error: result.error } : {}),
	});
	return result;
}

/** A branch-safe slug of the input, for the run's branch name. */
export function slugOf(input: Value): string {
	const text = typeof input === "string" ? input : JSON.stringify(input);
	return (
		text
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, "-")
			.replace(/^-+|-+$/g, "")
			.slice(0, 40) || "run"
	);
}
