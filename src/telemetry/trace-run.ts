/**
 * One life of a run as an OpenTelemetry trace, derived from the event stream the runner already emits
 * (an observer: unplug it and the run is the same). Spans go through `@opentelemetry/api` alone, so with
 * no SDK registered the root span is a no-op, the trace says it is not recording, and the run attaches no
 * listener and asks for no request events: tracing off costs one no-op span per life.
 *
 *   invoke_workflow review               the life (INTERNAL; links to earlier lives' roots)
 *   ├─ map items                         a block: `<kind> <node>`, generic over kinds
 *   │  ├─ invoke_agent scout             an agent visit (INTERNAL), items[1]/work
 *   │  │  ├─ chat wire-1                 one model request (CLIENT); transport retries are its events
 *   │  │  └─ execute_tool read           one tool call (INTERNAL)
 *   └─ ask approve                       its wait is its duration
 *
 * A visit replayed from an earlier life (or reused) is a span of no length that says so and has no child:
 * nothing ran again, so no request or tool is reported as newly executed (the conventions' replay rule).
 */
import { type Attributes, type Link, ROOT_CONTEXT, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import type { EventSink } from "../runtime/index.ts";
import { boundAttributes, placeAttributes, type TraceBound } from "./attributes.ts";
import { LifeTracer, type TraceEnd } from "./life-tracer.ts";
import { GEN_AI, GENERAL, OP, PF, SCOPE } from "./names.ts";
import { opened } from "./open-traces.ts";
import { formatTraceparent, parseTraceparent } from "./traceparent.ts";

export type { TraceBound } from "./attributes.ts";
export type { TraceEnd } from "./life-tracer.ts";

/** An earlier life's root, as its `life_start` journal entry keeps it. */
export interface LifeTrace {
	life: number;
	traceparent: string;
}

/** What a trace of one life knows before it starts. */
export interface TraceRunOptions {
	/** The flow's name: `gen_ai.workflow.name` (low cardinality, as the conventions ask). */
	flow: string;
	/** The run's id (its folder's name, or the database's run id). */
	run?: string;
	/** This life's number, from 1. */
	life?: number;
	/** Where the run's facts are kept: `folder` or `dbos`. */
	backend?: string;
	/** Earlier lives' roots: this life's root links to each (a resume is a new trace). */
	earlier?: readonly LifeTrace[];
	/** The span this trace continues, as `traceparent` (a map's span, handed to a worker with its item). */
	parent?: string;
	/**
	 * The map item a worker runs (`items[3]`): the trace's root is then that item's span (`map_item`), under
	 * `parent` when one came with the item, and not a workflow span of its own.
	 */
	item?: string;
	/** Each node's worst case by address, and the flow's. */
	bounds?: ReadonlyMap<string, TraceBound>;
	bound?: TraceBound;
	/** Visits a resume runs again although they may have written before the cut. */
	inDoubt?: readonly string[];
	/** Which replayed visits get a span (default all): a coordinator skips the items its workers reported. */
	showReplayed?: (path: string) => boolean;
	/** Message content on spans (redacted). Default: the environment's capture switch, read by the caller. */
	capture?: boolean;
	/** The tracer; default the global provider's (a no-op without an SDK). */
	tracer?: Tracer;
}

/** One life's trace. */
export interface RunTrace {
	/** False when nothing records (no SDK, or sampled out): `onEvent` is then absent. */
	readonly recording: boolean;
	/** The root's context as `traceparent`, for the journal's `life_start`; absent without an SDK. */
	readonly traceparent?: string;
	/** Feeds the run's events; absent when not recording, so a run attaches nothing. */
	readonly onEvent?: EventSink;
	/** The `traceparent` of the open span of visit `path` (a map handing out an item), else the root's. */
	carrier(path: string): string | undefined;
	/** Ends the root (and anything left open); idempotent. */
	end(how?: TraceEnd): void;
}

/** Opens the trace of one life. */
export function traceRun(o: TraceRunOptions): RunTrace {
	const tracer = o.tracer ?? trace.getTracer(SCOPE);
	const parent = parseTraceparent(o.parent);
	const base = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
	const root =
		o.item !== undefined
			? tracer.startSpan(`map_item ${o.item}`, { kind: SpanKind.CONSUMER, attributes: itemAttributes(o, o.item) }, base)
			: tracer.startSpan(
					`${OP.workflow} ${o.flow}`,
					{ kind: SpanKind.INTERNAL, attributes: rootAttributes(o), links: linksOf(o.earlier) },
					base,
				);
	const traceparent = formatTraceparent(root.spanContext());
	if (!root.isRecording()) {
		// Nothing records: end the no-op root now, keep its context for the journal and the workers.
		root.end();
		return { recording: false, ...(traceparent ? { traceparent } : {}), carrier: () => traceparent, end: () => {} };
	}
	const t = new LifeTracer(tracer, root, o);
	const closed = opened(t);
	return {
		recording: true,
		...(traceparent ? { traceparent } : {}),
		onEvent: (event) => t.on(event),
		carrier: (path) => formatTraceparent((t.visits.get(path)?.span ?? root).spanContext()),
		end: (how) => {
			closed();
			t.end(how);
		},
	};
}

function common(o: TraceRunOptions): Attributes {
	const a: Attributes = { [PF.flow]: o.flow };
	if (o.run) a[PF.runId] = o.run;
	if (o.life !== undefined) a[PF.life] = o.life;
	if (o.backend) a[PF.backend] = o.backend;
	return a;
}

function rootAttributes(o: TraceRunOptions): Attributes {
	const a = common(o);
	a[GEN_AI.operation] = OP.workflow;
	a[GEN_AI.workflowName] = o.flow;
	// `session.id` groups a run's lives (each its own trace) as one session in backends that group (Langfuse).
	if (o.run) a[GENERAL.sessionId] = o.run;
	boundAttributes(a, o.bound);
	return a;
}

function itemAttributes(o: TraceRunOptions, item: string): Attributes {
	const a = common(o);
	a[PF.path] = item;
	placeAttributes(a, `${item}/`);
	return a;
}

function linksOf(earlier: readonly LifeTrace[] | undefined): Link[] {
	return (earlier ?? []).flatMap((e) => {
		const context = parseTraceparent(e.traceparent);
		return context ? [{ context, attributes: { [PF.linkLife]: e.life } }] : [];
	});
}
