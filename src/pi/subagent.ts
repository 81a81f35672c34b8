/**
 * One in-process subagent: a pi session with its agent's system prompt, its tools as an allowlist, no
 * discovery, an in-memory session. `ask` never throws for a failed turn; it reads pi's stop reason and
 * returns `ok: false` with the error, and the usage is the delta of pi's counters over the turn.
 */
import {
	type AgentSession,
	type AgentSessionEvent,
	calculateContextTokens,
	type CreateAgentSessionOptions,
	estimateTokens,
	type ModelRuntime,
} from "@earendil-works/pi-coding-agent";
import { SUBAGENT_TOOLS } from "../agents/index.ts";
import { formatDuration } from "../runtime/index.ts";
import { type TurnWatch, watchTurn } from "../runtime/index.ts";
import type { ErrorKind, Result } from "../runtime/index.ts";
import type { AskOptions, SpawnRequest, Subagent } from "../runtime/index.ts";
import { emptyUsage, type Usage } from "../runtime/index.ts";
import type { ResolvedModel } from "./host.ts";
import { createAgentSession, sessionDefaults, staticResources } from "./host.ts";
import { bindScriptedTurn, SCRIPTED_PROVIDER, type ScriptedModel, unbindScriptedTurn } from "./scripted/index.ts";
import { findWithoutFd } from "./find-without-fd.ts";
import { guardedTools } from "./guarded-tools.ts";
import { guardedPaths } from "../guard/index.ts";
import { toPiTool } from "./tools.ts";
import { type LateTools, lateTools } from "./late-tools.ts";
import type { Gate } from "../runtime/index.ts";
import type { TransportPolicy, TransportRetry } from "../runtime/index.ts";
import { type TransportHooks, wrapTransport } from "./transport.ts";
import { observeRequests } from "./requests.ts";

interface OpenOptions {
	id: string;
	request: SpawnRequest;
	model: ResolvedModel;
	cwd: string;
	agentDir: string;
	runtime: ModelRuntime;
	scripted?: ScriptedModel;
	/** Transport retries of every request (not applied to the scripted model, which has no wire). */
	transport?: { policy: TransportPolicy; gate?: Gate };
	onClose: (s: Subagent) => void;
}

type Thinking = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** pi's built-in tools: every one the turn does not name is left out of its session. */
const BUILT_IN = SUBAGENT_TOOLS.filter((t) => t !== "subagent");

/**
 * The turn's tools as pi's session options: nothing but `names` and our own tools is registered. Not as an
 * allowlist (`tools: names`), because pi declares every tool an allowlist names the moment it registers it,
 * so a tool offered later (the handoff tools, declared at the watermark) had to be taken back after the
 * session was made, rebuilding its system prompt and tools on every spawn. Instead the names are added to an
 * empty selection (`noTools: "builtin"`), every other built-in tool and every MCP tool is excluded, and a
 * tool offered later is registered when it is offered (`lateTools`), inactive (`toPiTool`: `defaultActive:
 * false`) until the offer declares it. With no names at all,
 * pi's selection stays empty and only our own tools are declared.
 */
function toolSelection(
	names: readonly string[],
): Pick<CreateAgentSessionOptions, "tools" | "noTools" | "excludeTools"> {
	return {
		...(names.length ? { tools: names.map((n) => `+${n}`) } : {}),
		noTools: "builtin",
		excludeTools: [...BUILT_IN.filter((t) => !names.includes(t)), "mcp__*"],
	};
}

/**
 * Whether a turn's end leaves its context clearly under the watermark, without asking pi: the turn's
 * answer reports the context it was sent (its usage), and what the turn's tools returned since is counted
 * as pi estimates it. pi's own count (`getContextUsage`) rebuilds the session's projection, a few
 * kilobytes of garbage on every turn of every visit, so it is asked only when this count comes within a
 * tenth of the threshold, or cannot be made (an answer with no usage, a model with no window).
 */
function clearlyUnder(event: TurnEnd, window: number | undefined, threshold: number): boolean {
	const answer = event.message;
	if (!window || answer.role !== "assistant" || answer.stopReason === "aborted" || answer.stopReason === "error")
		return false;
	let tokens = calculateContextTokens(answer.usage);
	if (!(tokens > 0)) return false;
	for (const result of event.toolResults) tokens += estimateTokens(result);
	return tokens < threshold * window * 0.9;
}

type TurnEnd = Extract<AgentSessionEvent, { type: "turn_end" }>;

/** A turn being asked, as its session's listener watches it. */
interface Playing {
	watch?: TurnWatch;
	watermark?: NonNullable<AskOptions["watermark"]>;
	/** Whether the watermark has steered in its directive: once per ask. */
	fired: boolean;
}

/** Where a session's listener finds the turn being asked; empty between turns. */
interface Slot {
	turn?: Playing;
}

/**
 * At a turn end past the watermark's threshold, the offered tools are declared and the land-the-plane
 * directive is steered in, once per ask, unless the turn has already handed off (`muted`).
 */
function atTurnEnd(session: AgentSession, turn: Playing, event: TurnEnd, late: LateTools | undefined): void {
	const watermark = turn.watermark;
	if (!watermark || turn.fired || watermark.muted?.()) return;
	if (clearlyUnder(event, session.model?.contextWindow, watermark.threshold)) return;
	const usage = session.getContextUsage();
	if (!usage || usage.tokens == null || !(usage.contextWindow > 0)) return;
	if (usage.tokens / usage.contextWindow < watermark.threshold) return;
	turn.fired = true;
	// Declared before the steer is read: the directive names tools the next request must have.
	const active = session.getActiveToolNames();
	const offer = (watermark.offer ?? []).filter((n) => !active.includes(n));
	if (offer.length) {
		late?.register();
		session.setActiveToolsByName([...active, ...offer]);
	}
	void session.steer(watermark.directive).catch(() => {});
}

/** Creates the session and wraps it as a {@link Subagent}. */
export async function openSubagent(o: OpenOptions): Promise<Subagent> {
	const { request } = o;
	const thinking = (request.thinking ?? o.model.thinking ?? request.agent.thinking ?? "off") as Thinking;
	const names = request.tools ?? request.agent.tools;
	// The write guard (src/guard) for the folder this turn works in, whatever started it, plus what its
	// caller adds (the run's own record, the run's project when the turn works in a copy). Only a turn that
	// can write needs it: walking every folder up from the cwd was a tenth of a read-only turn.
	const writes = names.includes("write") || names.includes("edit");
	const noWrite = writes ? [...guardedPaths({ cwd: o.cwd }), ...(request.protectedPaths ?? [])] : [];
	const guarded = writes ? guardedTools(o.cwd, names, { noWrite }) : [];
	// `find` on Node's glob where `fd` cannot run (pi would try to download it, which fails offline).
	// Tools a watermark offers are registered when it does, in a session that starts afresh (`lateTools`); a
	// session continued from its folder may restore them as active from its transcript, so it has them from the start.
	const later = request.laterTools;
	const late = later && !request.sessionDir ? lateTools(later) : undefined;
	const custom = [
		...guarded,
		...findWithoutFd(o.cwd, names, o.agentDir),
		...(request.customTools ?? []).map((s) => toPiTool(s)),
		...(later && !late ? later().map((s) => toPiTool(s, true)) : []),
	];
	const { session } = await createAgentSession({
		cwd: o.cwd,
		agentDir: o.agentDir,
		modelRuntime: o.runtime,
		model: o.model.model,
		thinkingLevel: thinking,
		resourceLoader: staticResources(
			request.appendPrompt ? `${request.agent.prompt}\n\n${request.appendPrompt}` : request.agent.prompt,
			request.agent.skills,
			late,
		),
		...toolSelection(names),
		...(custom.length ? { customTools: custom } : {}),
		...sessionDefaults(o.cwd, request.sessionDir),
	});
	let hooks: TransportHooks | undefined;
	if (o.transport && o.model.model.provider !== SCRIPTED_PROVIDER)
		wrapTransport(session.agent, o.transport.policy, o.transport.gate, () => hooks);
	// Outermost, so a request is told once however many transport retries it took.
	if (request.onRequest) observeRequests(session.agent, request.onRequest);
	const onToolEnd = request.onToolEnd;
	// A message's text as it streams reaches `onDraft` every DRAFT_MS, so a watcher sees it grow; a message
	// that ends sooner has no draft, only its end.
	let drafted = 0;
	// The turn being asked, if it is watched: one listener for the session's life rather than one per turn.
	const slot: Slot = {};
	const off = session.subscribe((event) => {
		const turn = slot.turn;
		if (turn) {
			// Any event (a token, a tool update) proves the turn is alive.
			turn.watch?.touch();
			if (event.type === "turn_end" && turn.watermark) atTurnEnd(session, turn, event, late);
		}
		if (event.type === "tool_execution_start") request.onToolCall?.(event.toolName, event.args, event.toolCallId);
		if (event.type === "tool_execution_end" && onToolEnd) {
			const result: unknown = event.result;
			onToolEnd({
				tool: event.toolName,
				callId: event.toolCallId,
				ok: !event.isError,
				...(event.durationMs !== undefined ? { ms: event.durationMs } : {}),
				content: () => result,
			});
		}
		if (event.type === "message_start") drafted = performance.now();
		if (
			event.type === "message_update" &&
			request.onDraft &&
			event.message.role === "assistant" &&
			performance.now() - drafted >= DRAFT_MS
		) {
			drafted = performance.now();
			const text = textOf(event.message.content);
			if (text) request.onDraft(text);
		}
		if (event.type === "message_end" && request.onMessage && event.message.role === "assistant") {
			const text = textOf(event.message.content);
			if (text) request.onMessage(text);
		}
	});
	let closed = false;
	const sub: Subagent = {
		id: o.id,
		agent: request.agent.name,
		model: o.model.ref,
		ask: (task, options) => ask(session, sub, o, task, options ?? {}, (h) => (hooks = h), slot),
		steer: async (text) => {
			if (!closed && session.isStreaming) await session.steer(text);
		},
		close: async () => {
			if (closed) return;
			closed = true;
			off();
			unbindScriptedTurn(session.sessionId);
			try {
				await session.abort();
			} finally {
				session.dispose();
				o.onClose(sub);
			}
		},
	};
	return sub;
}

async function ask(
	session: AgentSession,
	sub: Subagent,
	o: OpenOptions,
	task: string,
	options: AskOptions,
	plug: (h: TransportHooks | undefined) => void,
	slot: Slot,
): Promise<Result> {
	const started = performance.now();
	const base = { agent: sub.agent, model: sub.model };
	if (options.signal?.aborted) {
		return {
			...base,
			output: "",
			messages: [],
			usage: emptyUsage(),
			ok: false,
			error: "aborted",
			errorKind: "aborted",
		};
	}
	// The turn starts now, whatever wait came before: a budget spent meanwhile refuses it here.
	const refusal = options.onStart?.();
	if (refusal)
		return { ...base, output: "", messages: [], usage: emptyUsage(), ok: false, error: refusal, errorKind: "budget" };
	// Whoever heard the start may have stopped the run on hearing it.
	if (options.signal?.aborted)
		return {
			...base,
			output: "",
			messages: [],
			usage: emptyUsage(),
			ok: false,
			error: "aborted",
			errorKind: "aborted",
		};
	// Any scripted model in the process answers by visit (a test extension's included), not just ours.
	if (o.model.model.provider === SCRIPTED_PROVIDER) bindScriptedTurn(session.sessionId, options.label ?? sub.agent);
	const before = session.getSessionStats();
	const firstMessage = session.messages.length;
	let timedOut = false;
	let idled = false;
	const abort = () => void session.abort();
	// The deadline and the idle watch share one timer with every other turn's (`watchTurn`).
	const watch =
		options.timeoutMs !== undefined || options.idleMs !== undefined
			? watchTurn({
					timeoutMs: options.timeoutMs,
					idleMs: options.idleMs,
					timedOut: () => {
						timedOut = true;
						abort();
					},
					idled: () => {
						idled = true;
						abort();
					},
				})
			: undefined;
	// The session's listener watches the turn: its idle clock, and its watermark.
	if (watch || options.watermark) {
		const turn: Playing = { fired: false };
		if (watch) turn.watch = watch;
		if (options.watermark) turn.watermark = options.watermark;
		slot.turn = turn;
	}
	// Transport retries happen inside pi's request: they are signs of life, and what they billed is ours to add.
	const retries: TransportRetry[] = [];
	const lost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };
	plug({
		touch: () => watch?.touch(),
		retry: (r) => {
			retries.push(r);
			options.onRetry?.(r);
		},
		billed: (u) => {
			lost.input += u.input;
			lost.output += u.output;
			lost.cacheRead += u.cacheRead;
			lost.cacheWrite += u.cacheWrite;
			lost.totalTokens += u.input + u.output + u.cacheRead + u.cacheWrite;
			lost.cost += u.cost.total;
		},
	});
	options.signal?.addEventListener("abort", abort, { once: true });
	let thrown: unknown;
	try {
		await session.prompt(task, { expandPromptTemplates: false });
	} catch (error) {
		// pi throws only before a request is made (no credentials, no model); a provider failure arrives as
		// a stop reason below.
		thrown = error;
	} finally {
		watch?.clear();
		slot.turn = undefined;
		options.signal?.removeEventListener("abort", abort);
		plug(undefined);
	}
	const after = session.getSessionStats();
	const usage: Usage = {
		input: after.tokens.input - before.tokens.input + lost.input,
		output: after.tokens.output - before.tokens.output + lost.output,
		cacheRead: after.tokens.cacheRead - before.tokens.cacheRead + lost.cacheRead,
		cacheWrite: after.tokens.cacheWrite - before.tokens.cacheWrite + lost.cacheWrite,
		totalTokens: after.tokens.total - before.tokens.total + lost.totalTokens,
		cost: after.cost - before.cost + lost.cost,
		requests: after.assistantMessages - before.assistantMessages,
		toolCalls: after.toolCalls - before.toolCalls,
		ms: performance.now() - started,
		...(retries.length ? { retries: retries.length, retryWaitMs: retries.reduce((n, r) => n + r.delayMs, 0) } : {}),
	};
	const messages = session.messages.slice(firstMessage);
	const last = [...messages].reverse().find((m) => (m as { role?: string }).role === "assistant") as
		| { stopReason?: string; errorMessage?: string }
		| undefined;
	const output = session.getLastAssistantText() ?? "";
	const fail = (kind: ErrorKind, error: string): Result => ({
		...base,
		output,
		messages,
		usage,
		ok: false,
		error,
		errorKind: kind,
	});
	if (timedOut) return fail("timeout", `timed out after ${formatDuration(options.timeoutMs ?? 0)}`);
	if (idled) return fail("idle", `no sign of life for ${formatDuration(options.idleMs ?? 0)}`);
	if (options.signal?.aborted) return fail("aborted", "aborted");
	if (thrown !== undefined) return fail("provider", thrown instanceof Error ? thrown.message : String(thrown));
	if (!last) return fail("provider", "the model gave no answer");
	if (last.stopReason === "error") return fail("provider", last.errorMessage ?? "the provider reported an error");
	if (last.stopReason === "aborted") return fail("aborted", last.errorMessage ?? "aborted");
	if (last.stopReason === "length") return fail("provider", "the answer hit the model's output limit");
	return { ...base, output, messages, usage, ok: true };
}

/** How often a streaming message's text is passed on while it grows (ms). */
const DRAFT_MS = 500;

/** The text parts of an assistant message, joined. */
function textOf(content: readonly { type: string; text?: string }[]): string {
	return content
		.map((c) => (c.type === "text" ? (c.text ?? "") : ""))
		.join("")
		.trim();
}
