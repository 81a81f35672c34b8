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
import {
	type Attributes,
	type Context,
	type Link,
	ROOT_CONTEXT,
	type Span,
	SpanKind,
	SpanStatusCode,
	type Tracer,
	trace,
} from "@opentelemetry/api";
import type { EventSink, FlowEvent, Usage } from "../runtime/index.ts";
import { redactText } from "../secrets/index.ts";
import { inputOf, outputOf, redactedJson } from "./content.ts";
import { EVENTS, GEN_AI, GENERAL, OP, PF, SCOPE } from "./names.ts";
import { addressOf, enclosing, loopRoundOf, mapItemOf } from "./paths.ts";
import { providerName, splitModel } from "./providers.ts";
import { reuseFactOf } from "./reuse.ts";
import { formatTraceparent, parseTraceparent } from "./traceparent.ts";

/** A node's worst case, as the checker computed it (structurally the checker's `Bound`). */
export interface TraceBound {
	turns: number;
	ms: number;
	waits: boolean;
}

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

/** How a life ended, for the root's status. */
export interface TraceEnd {
	ok: boolean;
	error?: string;
	errorKind?: string;
	failedAt?: string;
	usage?: Usage;
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

const live = new Set<{ end(how?: TraceEnd): void }>();

/** Ends every trace still open in this process (the second Ctrl-C quits without waiting for the run). */
export function endOpenTraces(reason: string): void {
	for (const t of [...live]) t.end({ ok: false, error: reason, errorKind: "stopped" });
}

/** Opens the trace of one life. */
export function traceRun(o: TraceRunOptions): RunTrace {
	const tracer = o.tracer ?? trace.getTracer(SCOPE);
	const parent = parseTraceparent(o.parent);
	const base = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
	const root =
		o.item !== undefined
			? tracer.startSpan(
					`map_item ${o.item ?? ""}`.trim(),
					{ kind: SpanKind.CONSUMER, attributes: itemAttributes(o) },
					base,
				)
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
	live.add(t);
	return {
		recording: true,
		...(traceparent ? { traceparent } : {}),
		onEvent: (event) => t.on(event),
		carrier: (path) => formatTraceparent((t.visits.get(path) ?? root).spanContext()),
		end: (how) => {
			live.delete(t);
			t.end(how);
		},
	};
}

function rootAttributes(o: TraceRunOptions): Attributes {
	return {
		[GEN_AI.operation]: OP.workflow,
		[GEN_AI.workflowName]: o.flow,
		[PF.flow]: o.flow,
		// `session.id` groups a run's lives (each its own trace) as one session in backends that group (Langfuse).
		...(o.run ? { [PF.runId]: o.run, [GENERAL.sessionId]: o.run } : {}),
		...(o.life !== undefined ? { [PF.life]: o.life } : {}),
		...(o.backend ? { [PF.backend]: o.backend } : {}),
		...boundAttributes(o.bound),
	};
}

function itemAttributes(o: TraceRunOptions): Attributes {
	return {
		[PF.flow]: o.flow,
		...(o.item ? { [PF.path]: o.item, ...mapItemAttributes(`${o.item}/x`) } : {}),
		...(o.run ? { [PF.runId]: o.run } : {}),
		...(o.life !== undefined ? { [PF.life]: o.life } : {}),
		...(o.backend ? { [PF.backend]: o.backend } : {}),
	};
}

function linksOf(earlier: readonly LifeTrace[] | undefined): Link[] {
	return (earlier ?? []).flatMap((e) => {
		const context = parseTraceparent(e.traceparent);
		return context ? [{ context, attributes: { [PF.linkLife]: e.life } }] : [];
	});
}

function budgetAttributes(b: { tokens?: number; cost?: number; turns?: number }): Attributes {
	return {
		...(b.tokens !== undefined ? { [PF.budgetTokens]: b.tokens } : {}),
		...(b.cost !== undefined ? { [PF.budgetCost]: b.cost } : {}),
		...(b.turns !== undefined ? { [PF.budgetTurns]: b.turns } : {}),
	};
}

function boundAttributes(b: TraceBound | undefined): Attributes {
	return b ? { [PF.boundTurns]: b.turns, [PF.boundMs]: b.ms, [PF.boundWaits]: b.waits } : {};
}

function mapItemAttributes(path: string): Attributes {
	const item = mapItemOf(path);
	const round = loopRoundOf(path);
	return {
		...(item ? { [PF.mapPath]: item.map, [PF.mapItem]: item.item } : {}),
		...(round ? { [PF.loopPath]: round.loop, [PF.loopRound]: round.round } : {}),
	};
}

/** The conventions' usage attributes from pi's counters: input tokens include the cached ones. */
function usageAttributes(u: {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
}): Attributes {
	return {
		[GEN_AI.inputTokens]: u.input + u.cacheRead + u.cacheWrite,
		[GEN_AI.outputTokens]: u.output,
		[GEN_AI.cacheReadTokens]: u.cacheRead,
		[GEN_AI.cacheCreationTokens]: u.cacheWrite,
		[PF.cost]: u.cost,
	};
}

type NodeStart = Extract<FlowEvent, { type: "node_start" }>;
type NodeEnd = Extract<FlowEvent, { type: "node_end" }>;

/** The spans of one life, open by visit path, request (per subagent) and tool call. */
class LifeTracer {
	readonly visits = new Map<string, Span>();
	private readonly chats = new Map<string, { span: Span; retry?: string }>();
	private readonly tools = new Map<string, Span>();
	private readonly tracer: Tracer;
	private readonly root: Span;
	private readonly o: TraceRunOptions;
	private readonly rootContext: Context;
	private readonly inDoubt: ReadonlySet<string>;
	private ended = false;

	constructor(tracer: Tracer, root: Span, o: TraceRunOptions) {
		this.tracer = tracer;
		this.root = root;
		this.o = o;
		this.rootContext = trace.setSpan(ROOT_CONTEXT, root);
		this.inDoubt = new Set(o.inDoubt ?? []);
	}

	on(e: FlowEvent): void {
		if (this.ended) return;
		switch (e.type) {
			case "run_start":
				if (e.budget) this.root.setAttributes(budgetAttributes(e.budget));
				break;
			case "node_start":
				this.visitStart(e);
				break;
			case "node_end":
				this.visitEnd(e);
				break;
			case "turn_wait":
				this.visits.get(e.path)?.addEvent(EVENTS.turnWait, { [PF.subagent]: e.subagent });
				break;
			case "turn_start":
				this.turnStart(e);
				break;
			case "turn_end":
				this.visits.get(e.path)?.addEvent(EVENTS.turnEnd, { [PF.subagent]: e.subagent, [PF.turnOk]: e.ok });
				break;
			case "turn_refused":
				this.visits
					.get(e.path)
					?.addEvent(EVENTS.turnRefused, { [PF.subagent]: e.subagent, [PF.turnReason]: redactText(e.reason) });
				break;
			case "request_start":
				this.requestStart(e);
				break;
			case "provider_retry":
				this.retry(e);
				break;
			case "request_end":
				this.requestEnd(e);
				break;
			case "tool_call":
				this.toolStart(e);
				break;
			case "tool_end":
				this.toolEnd(e);
				break;
			case "ask_answered":
				this.visits.get(e.path)?.setAttributes({ [PF.askAnswer]: e.answer, [PF.askWaitMs]: Math.round(e.waitedMs) });
				break;
			case "budget_warning":
				this.root.addEvent(EVENTS.budgetWarning, { [PF.budgetSpent]: e.spent });
				break;
			case "budget_exhausted":
				this.root.addEvent(EVENTS.budgetExhausted, { [PF.budgetReason]: e.reason });
				break;
			case "budget_unpriced":
				this.root.addEvent(EVENTS.budgetUnpriced, { [PF.budgetModel]: e.model, [PF.budgetReason]: e.reason });
				break;
			case "budget_spend":
				this.root.setAttributes({ [PF.spentTokens]: e.tokens, [PF.spentCost]: e.cost, [PF.spentTurns]: e.turns });
				break;
			default:
				// Everything else (messages, the chain's own events, run_end) adds nothing a span keeps.
				break;
		}
	}

	private turnStart(e: Extract<FlowEvent, { type: "turn_start" }>): void {
		const span = this.visits.get(e.path);
		if (!span) return;
		span.addEvent(EVENTS.turnStart, { [PF.subagent]: e.subagent });
		span.setAttribute(GEN_AI.agentId, e.subagent);
		const m = splitModel(e.model);
		if (m.provider) span.setAttributes({ [GEN_AI.provider]: providerName(m.provider), [PF.piProvider]: m.provider });
		if (m.model) span.setAttribute(GEN_AI.requestModel, m.model);
	}

	/** A transport retry is an event of the request it belongs to, with its cause. */
	private retry(e: Extract<FlowEvent, { type: "provider_retry" }>): void {
		const chat = this.chats.get(e.subagent);
		if (chat) chat.retry = e.reason;
		(chat?.span ?? this.visits.get(e.path))?.addEvent(EVENTS.retry, {
			[PF.retryAttempt]: e.attempt,
			[PF.retryReason]: e.reason,
			[PF.retryMessage]: redactText(e.message),
			[PF.retryDelayMs]: e.delayMs,
			...(e.retryAfterMs !== undefined ? { [PF.retryAfterMs]: e.retryAfterMs } : {}),
		});
	}

	/** The span a visit's span hangs under: the nearest enclosing visit still open, else the root. */
	private parentOf(path: string): Context {
		for (const p of enclosing(path)) {
			const span = this.visits.get(p);
			if (span) return trace.setSpan(ROOT_CONTEXT, span);
		}
		return this.rootContext;
	}

	/** A visit's name and the attributes it has from its start, whatever its kind. */
	private visitShape(e: NodeStart | NodeEnd): { name: string; attributes: Attributes } {
		const bound = this.o.bounds?.get(addressOf(e.path));
		const attributes: Attributes = {
			[PF.path]: e.path,
			[PF.node]: e.node,
			[PF.kind]: e.kind,
			...mapItemAttributes(e.path),
			...boundAttributes(bound),
			...(this.inDoubt.has(e.path) ? { [PF.inDoubt]: true } : {}),
		};
		if (e.kind !== "agent") return { name: `${e.kind} ${e.node}`, attributes };
		const m = splitModel(e.model);
		return {
			name: e.agent ? `${OP.agent} ${e.agent}` : OP.agent,
			attributes: {
				[GEN_AI.operation]: OP.agent,
				...(e.agent ? { [GEN_AI.agentName]: e.agent } : {}),
				...(m.provider ? { [GEN_AI.provider]: providerName(m.provider), [PF.piProvider]: m.provider } : {}),
				...(m.model ? { [GEN_AI.requestModel]: m.model } : {}),
				...attributes,
			},
		};
	}

	private visitStart(e: NodeStart): void {
		const { name, attributes } = this.visitShape(e);
		this.visits.set(
			e.path,
			this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, this.parentOf(e.path)),
		);
	}

	private visitEnd(e: NodeEnd): void {
		let span = this.visits.get(e.path);
		const at = Date.now();
		if (e.replayed) {
			if (this.o.showReplayed && !this.o.showReplayed(e.path)) return;
			// Ended in an earlier life: a span of no length that says so, with nothing under it.
			const { name, attributes } = this.visitShape(e);
			span = this.tracer.startSpan(
				name,
				{ kind: SpanKind.INTERNAL, attributes: { ...attributes, [PF.replayed]: true }, startTime: at },
				this.parentOf(e.path),
			);
		}
		if (!span) return;
		this.visits.delete(e.path);
		const reuse = reuseFactOf(e);
		if (reuse) span.setAttributes({ [PF.reused]: true, ...(reuse.from ? { [PF.reusedFrom]: reuse.from } : {}) });
		if (!e.replayed) {
			const u = e.usage;
			span.setAttributes({
				...(e.kind === "agent" || u.requests > 0 ? usageAttributes(u) : { [PF.cost]: u.cost }),
				[PF.requests]: u.requests,
				[PF.toolCalls]: u.toolCalls,
				...(u.retries ? { [PF.retries]: u.retries, [PF.retryWaitMs]: u.retryWaitMs ?? 0 } : {}),
			});
		}
		if (!e.ok) fail(span, e.errorKind ?? "_OTHER", e.error ?? "the visit failed");
		span.end(e.replayed ? at : undefined);
	}

	private requestStart(e: Extract<FlowEvent, { type: "request_start" }>): void {
		const parent = this.visits.get(e.path);
		const span = this.tracer.startSpan(
			`${OP.chat} ${e.model}`,
			{
				kind: SpanKind.CLIENT,
				attributes: {
					[GEN_AI.operation]: OP.chat,
					[GEN_AI.provider]: providerName(e.provider),
					[GEN_AI.requestModel]: e.model,
					[PF.piProvider]: e.provider,
					[PF.path]: e.path,
					[PF.subagent]: e.subagent,
					...serverAttributes(e.server),
				},
			},
			parent ? trace.setSpan(ROOT_CONTEXT, parent) : this.rootContext,
		);
		this.chats.set(e.subagent, { span });
	}

	private requestEnd(e: Extract<FlowEvent, { type: "request_end" }>): void {
		const chat = this.chats.get(e.subagent);
		if (!chat) return;
		this.chats.delete(e.subagent);
		const { span } = chat;
		span.setAttributes({
			[GEN_AI.responseModel]: e.responseModel ?? e.model,
			...(e.responseId ? { [GEN_AI.responseId]: e.responseId } : {}),
			[GEN_AI.finishReasons]: [e.finish],
			...usageAttributes(e.usage),
		});
		if (this.o.capture && e.content) {
			const { messages, output } = e.content();
			const { input, system } = inputOf(messages);
			span.setAttributes({
				[GEN_AI.inputMessages]: redactedJson(input),
				[GEN_AI.outputMessages]: redactedJson(outputOf(output, e.finish)),
				...(system.length ? { [GEN_AI.systemInstructions]: redactedJson(system) } : {}),
			});
		}
		// A request lost after its retries failed for the last retry's cause (a status, `stall`, `cut`).
		if (e.error !== undefined) fail(span, chat.retry ?? e.finish, e.error);
		span.end();
	}

	private toolStart(e: Extract<FlowEvent, { type: "tool_call" }>): void {
		if (!e.callId) return;
		const parent = this.visits.get(e.path);
		const span = this.tracer.startSpan(
			`${OP.tool} ${e.tool}`,
			{
				kind: SpanKind.INTERNAL,
				attributes: {
					[GEN_AI.operation]: OP.tool,
					[GEN_AI.toolName]: e.tool,
					[GEN_AI.toolCallId]: e.callId,
					[GEN_AI.toolType]: "function",
					[PF.path]: e.path,
					...(this.o.capture ? { [GEN_AI.toolArguments]: redactedJson(e.args ?? null) } : {}),
				},
			},
			parent ? trace.setSpan(ROOT_CONTEXT, parent) : this.rootContext,
		);
		this.tools.set(e.callId, span);
	}

	private toolEnd(e: Extract<FlowEvent, { type: "tool_end" }>): void {
		const span = this.tools.get(e.callId);
		if (!span) return;
		this.tools.delete(e.callId);
		if (e.ms !== undefined) span.setAttribute(PF.toolMs, e.ms);
		if (this.o.capture && e.content && e.ok) span.setAttribute(GEN_AI.toolResult, redactedJson(e.content()));
		if (!e.ok) fail(span, "tool_error", "the tool reported an error");
		span.end();
	}

	end(how?: TraceEnd): void {
		if (this.ended) return;
		this.ended = true;
		// Whatever is still open did not end with the life (a crash, a quit): said so, then closed.
		const cut = how?.error ?? "the run ended before this did";
		for (const s of this.tools.values()) endCut(s, cut);
		for (const c of this.chats.values()) endCut(c.span, cut);
		for (const s of [...this.visits.values()].reverse()) endCut(s, cut);
		this.tools.clear();
		this.chats.clear();
		this.visits.clear();
		if (how?.usage) this.root.setAttributes({ ...usageAttributes(how.usage), [PF.requests]: how.usage.requests });
		if (how && !how.ok) {
			fail(this.root, how.errorKind ?? "_OTHER", how.error ?? "the run failed");
			if (how.failedAt) this.root.setAttribute(PF.failedAt, how.failedAt);
		} else if (!how) fail(this.root, "_OTHER", "the life ended without a result");
		this.root.end();
	}
}

/** A failure on a span: error status, `error.type`, and the conventions' exception event (redacted). */
function fail(span: Span, kind: string, message: string): void {
	const text = redactText(message);
	span.setStatus({ code: SpanStatusCode.ERROR, message: text });
	span.setAttributes({ [GENERAL.errorType]: kind, [PF.failure]: kind });
	span.addEvent(EVENTS.exception, { [GENERAL.exceptionType]: kind, [GENERAL.exceptionMessage]: text });
}

function endCut(span: Span, reason: string): void {
	fail(span, "stopped", reason);
	span.end();
}

function serverAttributes(server: string | undefined): Attributes {
	if (!server) return {};
	const colon = server.lastIndexOf(":");
	const port = colon > 0 ? Number(server.slice(colon + 1)) : Number.NaN;
	return Number.isInteger(port)
		? { [GENERAL.serverAddress]: server.slice(0, colon), [GENERAL.serverPort]: port }
		: { [GENERAL.serverAddress]: server };
}
