/**
 * The spans of one recording life, opened and ended as the run's events arrive: a span per visit (open by
 * its path), per model request (open by subagent: a subagent's requests go one at a time) and per tool
 * call (open by its call id). Its entry is `traceRun` (trace-run.ts), which makes one only when the root
 * records; this is the per-event work, kept to plain assignments (bench/trace.ts measures it).
 *
 *   node_start items[2]/work   → invoke_agent scout, under the open span of `items`
 *   request_start / _end       → chat wire-1 under it; provider_retry between them → a retry event on it
 *   tool_call / tool_end       → execute_tool read under the visit
 */
import {
	type Attributes,
	type Context,
	ROOT_CONTEXT,
	type Span,
	SpanKind,
	type Tracer,
	trace,
} from "@opentelemetry/api";
import type { FlowEvent, Usage } from "../runtime/index.ts";
import { redactText } from "../secrets/index.ts";
import {
	boundAttributes,
	fail,
	modelAttributes,
	placeAttributes,
	serverAttributes,
	type TraceBound,
	usageAttributes,
} from "./attributes.ts";
import { inputOf, outputOf, redactedJson } from "./content.ts";
import { EVENTS, GEN_AI, OP, PF } from "./names.ts";
import { addressOf, enclosing } from "../runtime/index.ts";
import { splitModel } from "./providers.ts";
import { reuseFactOf } from "./reuse.ts";

/** What a life's spans are made with. */
export interface LifeSettings {
	bounds?: ReadonlyMap<string, TraceBound>;
	inDoubt?: readonly string[];
	showReplayed?: (path: string) => boolean;
	capture?: boolean;
}

/** How a life ended, for the root's status. */
export interface TraceEnd {
	ok: boolean;
	error?: string;
	errorKind?: string;
	failedAt?: string;
	usage?: Usage;
}

type NodeStart = Extract<FlowEvent, { type: "node_start" }>;
type NodeEnd = Extract<FlowEvent, { type: "node_end" }>;

/** An open visit: its span, the context its children start in, and what its turns told so far. */
interface OpenVisit {
	span: Span;
	context: Context;
	turns: number;
	/** The subagent and model are on the span already (from the node's start or an earlier turn). */
	told: boolean;
}

/** The spans of one life. */
export class LifeTracer {
	readonly visits = new Map<string, OpenVisit>();
	private readonly chats = new Map<string, { span: Span; retry?: string }>();
	private readonly tools = new Map<string, Span>();
	private readonly tracer: Tracer;
	private readonly root: Span;
	private readonly rootContext: Context;
	private readonly settings: LifeSettings;
	private readonly inDoubt: ReadonlySet<string>;
	private ended = false;

	constructor(tracer: Tracer, root: Span, settings: LifeSettings) {
		this.tracer = tracer;
		this.root = root;
		this.settings = settings;
		this.rootContext = trace.setSpan(ROOT_CONTEXT, root);
		this.inDoubt = new Set(settings.inDoubt ?? []);
	}

	on(e: FlowEvent): void {
		if (this.ended) return;
		switch (e.type) {
			case "node_start":
				this.visitStart(e);
				break;
			case "node_end":
				this.visitEnd(e);
				break;
			case "turn_start":
				this.turnStart(e);
				break;
			case "turn_end":
				if (!e.ok) this.visits.get(e.path)?.span.addEvent(EVENTS.turnEnd, { [PF.turnOk]: false });
				break;
			case "turn_refused":
				this.visits.get(e.path)?.span.addEvent(EVENTS.turnRefused, { [PF.turnReason]: redactText(e.reason) });
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
				this.visits
					.get(e.path)
					?.span.setAttributes({ [PF.askAnswer]: e.answer, [PF.askWaitMs]: Math.round(e.waitedMs) });
				break;
			case "run_start":
				if (e.budget) {
					const b: Attributes = {};
					if (e.budget.tokens !== undefined) b[PF.budgetTokens] = e.budget.tokens;
					if (e.budget.cost !== undefined) b[PF.budgetCost] = e.budget.cost;
					if (e.budget.turns !== undefined) b[PF.budgetTurns] = e.budget.turns;
					this.root.setAttributes(b);
				}
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
				// The rest (a turn waiting for its session, messages, the chain's events, run_end) adds nothing a span keeps.
				break;
		}
	}

	/** The context a visit's span starts in: the nearest enclosing visit still open, else the root. */
	private parentOf(path: string): Context {
		if (path.includes("/"))
			for (const p of enclosing(path)) {
				const open = this.visits.get(p);
				if (open) return open.context;
			}
		return this.rootContext;
	}

	/** A visit's span, whatever its kind: `invoke_agent <agent>` for an agent, `<kind> <node>` for the rest. */
	private startVisit(e: NodeStart | NodeEnd, extra?: { replayed: number }): Span {
		const attributes: Attributes = {};
		let name: string;
		if (e.kind === "agent") {
			name = e.agent ? `${OP.agent} ${e.agent}` : OP.agent;
			attributes[GEN_AI.operation] = OP.agent;
			if (e.agent) attributes[GEN_AI.agentName] = e.agent;
			if (e.model) {
				const m = splitModel(e.model);
				modelAttributes(attributes, m.provider, m.model);
			}
		} else name = `${e.kind} ${e.node}`;
		attributes[PF.path] = e.path;
		attributes[PF.node] = e.node;
		attributes[PF.kind] = e.kind;
		placeAttributes(attributes, e.path);
		// A block's worst case (and the root's) tells what a part of the run may still cost; an agent
		// visit's is its node's retries × continuations, the same on every item of a map (`pi-flows plan`).
		if (this.settings.bounds && e.kind !== "agent")
			boundAttributes(attributes, this.settings.bounds.get(addressOf(e.path)));
		if (this.inDoubt.has(e.path)) attributes[PF.inDoubt] = true;
		if (extra) attributes[PF.replayed] = true;
		return this.tracer.startSpan(
			name,
			extra
				? { kind: SpanKind.INTERNAL, attributes, startTime: extra.replayed }
				: { kind: SpanKind.INTERNAL, attributes },
			this.parentOf(e.path),
		);
	}

	private visitStart(e: NodeStart): void {
		const span = this.startVisit(e);
		this.visits.set(e.path, {
			span,
			context: trace.setSpan(ROOT_CONTEXT, span),
			turns: 0,
			told: e.kind !== "agent" || e.model !== undefined,
		});
	}

	private visitEnd(e: NodeEnd): void {
		if (e.replayed) {
			if (this.settings.showReplayed && !this.settings.showReplayed(e.path)) return;
			// Ended in an earlier life: a span of no length that says so, with nothing under it.
			const at = Date.now();
			const span = this.startVisit(e, { replayed: at });
			this.endVisit(span, e);
			span.end(at);
			return;
		}
		const open = this.visits.get(e.path);
		if (!open) return;
		this.visits.delete(e.path);
		const u = e.usage;
		const a: Attributes = {};
		// A visit's requests and tool calls are its children; its usage sums them (and its blocks' children).
		if (e.kind === "agent" || u.requests > 0) usageAttributes(a, u);
		else if (u.cost) a[PF.cost] = u.cost;
		if (open.turns > 1) a[PF.turns] = open.turns;
		if (u.retries) {
			a[PF.retries] = u.retries;
			a[PF.retryWaitMs] = u.retryWaitMs ?? 0;
		}
		open.span.setAttributes(a);
		this.endVisit(open.span, e);
		open.span.end();
	}

	/** What a visit's end says, replayed or not: the reuse fact, and its failure. */
	private endVisit(span: Span, e: NodeEnd): void {
		const reuse = reuseFactOf(e);
		if (reuse) span.setAttributes({ [PF.reused]: true, ...(reuse.from ? { [PF.reusedFrom]: reuse.from } : {}) });
		if (!e.ok) fail(span, e.errorKind ?? "_OTHER", e.error ?? "the visit failed");
	}

	/** A turn's start: its subagent and model once; an event from the second turn on (a `retry:` of the node). */
	private turnStart(e: Extract<FlowEvent, { type: "turn_start" }>): void {
		const open = this.visits.get(e.path);
		if (!open) return;
		open.turns++;
		if (open.turns > 1) open.span.addEvent(EVENTS.turnStart, { [PF.turn]: open.turns, [PF.subagent]: e.subagent });
		if (open.told) return;
		open.told = true;
		const a: Attributes = { [GEN_AI.agentId]: e.subagent };
		const m = splitModel(e.model);
		modelAttributes(a, m.provider, m.model);
		open.span.setAttributes(a);
	}

	/** A transport retry is an event of the request it belongs to, with its cause. */
	private retry(e: Extract<FlowEvent, { type: "provider_retry" }>): void {
		const chat = this.chats.get(e.subagent);
		if (chat) chat.retry = e.reason;
		const a: Attributes = {
			[PF.retryAttempt]: e.attempt,
			[PF.retryReason]: e.reason,
			[PF.retryMessage]: redactText(e.message),
			[PF.retryDelayMs]: e.delayMs,
		};
		if (e.retryAfterMs !== undefined) a[PF.retryAfterMs] = e.retryAfterMs;
		(chat?.span ?? this.visits.get(e.path)?.span)?.addEvent(EVENTS.retry, a);
	}

	private requestStart(e: Extract<FlowEvent, { type: "request_start" }>): void {
		const a: Attributes = { [GEN_AI.operation]: OP.chat };
		modelAttributes(a, e.provider, e.model);
		serverAttributes(a, e.server);
		const span = this.tracer.startSpan(
			`${OP.chat} ${e.model}`,
			{ kind: SpanKind.CLIENT, attributes: a },
			this.visits.get(e.path)?.context ?? this.rootContext,
		);
		this.chats.set(e.subagent, { span });
	}

	private requestEnd(e: Extract<FlowEvent, { type: "request_end" }>): void {
		const chat = this.chats.get(e.subagent);
		if (!chat) return;
		this.chats.delete(e.subagent);
		const { span } = chat;
		const a = usageAttributes({}, e.usage);
		// pi keeps the answering model only where it differs from the one asked for: nothing is guessed here.
		if (e.responseModel) a[GEN_AI.responseModel] = e.responseModel;
		if (e.responseId) a[GEN_AI.responseId] = e.responseId;
		a[GEN_AI.finishReasons] = [e.finish];
		if (this.settings.capture && e.content) {
			const { messages, output } = e.content();
			const { input, system } = inputOf(messages);
			a[GEN_AI.inputMessages] = redactedJson(input);
			a[GEN_AI.outputMessages] = redactedJson(outputOf(output, e.finish));
			if (system.length) a[GEN_AI.systemInstructions] = redactedJson(system);
		}
		span.setAttributes(a);
		// A request lost after its retries failed for the last retry's cause (a status, `stall`, `cut`).
		if (e.error !== undefined) fail(span, chat.retry ?? e.finish, e.error);
		span.end();
	}

	private toolStart(e: Extract<FlowEvent, { type: "tool_call" }>): void {
		if (!e.callId) return;
		const a: Attributes = {
			[GEN_AI.operation]: OP.tool,
			[GEN_AI.toolName]: e.tool,
			[GEN_AI.toolCallId]: e.callId,
			[GEN_AI.toolType]: "function",
		};
		if (this.settings.capture) a[GEN_AI.toolArguments] = redactedJson(e.args ?? null);
		const span = this.tracer.startSpan(
			`${OP.tool} ${e.tool}`,
			{ kind: SpanKind.INTERNAL, attributes: a },
			this.visits.get(e.path)?.context ?? this.rootContext,
		);
		this.tools.set(e.callId, span);
	}

	private toolEnd(e: Extract<FlowEvent, { type: "tool_end" }>): void {
		const span = this.tools.get(e.callId);
		if (!span) return;
		this.tools.delete(e.callId);
		if (e.ms !== undefined) span.setAttribute(PF.toolMs, e.ms);
		if (this.settings.capture && e.content && e.ok) span.setAttribute(GEN_AI.toolResult, redactedJson(e.content()));
		if (!e.ok) fail(span, "tool_error", "the tool reported an error");
		span.end();
	}

	/** Ends the root, and whatever is still open as cut (a crash, a quit); idempotent. */
	end(how?: TraceEnd): void {
		if (this.ended) return;
		this.ended = true;
		const cut = how?.error ?? "the run ended before this did";
		for (const s of this.tools.values()) endCut(s, cut);
		for (const c of this.chats.values()) endCut(c.span, cut);
		for (const v of [...this.visits.values()].reverse()) endCut(v.span, cut);
		this.tools.clear();
		this.chats.clear();
		this.visits.clear();
		if (how?.usage) {
			const a = usageAttributes({}, how.usage);
			a[PF.requests] = how.usage.requests;
			this.root.setAttributes(a);
		}
		if (how && !how.ok) {
			fail(this.root, how.errorKind ?? "_OTHER", how.error ?? "the run failed");
			if (how.failedAt) this.root.setAttribute(PF.failedAt, how.failedAt);
		} else if (!how) fail(this.root, "_OTHER", "the life ended without a result");
		this.root.end();
	}
}

function endCut(span: Span, reason: string): void {
	fail(span, "stopped", reason);
	span.end();
}
