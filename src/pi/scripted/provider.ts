/**
 * The `scripted` provider: pi-ai's faux core behind a dispatcher that answers each request from the
 * script entry of the turn that asked. Turns are told apart by pi's `sessionId`, which every request
 * carries: the subagent binds its session to the visit it is playing before each turn, so concurrent
 * turns of a map never take each other's steps.
 */
import type { AssistantMessage, Context, Message } from "@earendil-works/pi-ai";
// Only the package root: it is what pi's extension loader maps (docs/decisions.md, "What pi provides").
import {
	calculateCost,
	createFauxCore,
	createProvider,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
	getCurrentTools,
	getSystemMessageText,
} from "@earendil-works/pi-ai";
import { fillArgs, fillTemplate, type Script, type ScriptStep, stepsFor } from "../../script/index.ts";

/** Provider and model id of the scripted model: `--model scripted` or `scripted/scripted`. */
export const SCRIPTED_PROVIDER = "scripted";
export const SCRIPTED_MODEL = "scripted";

/** A registered scripted model and its turn bindings. */
export interface ScriptedModel {
	readonly provider: ReturnType<typeof createProvider>;
	/** Says which visit a session's next requests belong to. */
	bind(sessionId: string, visit: string): void;
	unbind(sessionId: string): void;
	/** Requests answered so far (for tests and benchmarks). */
	readonly calls: () => number;
}

interface Binding {
	visit: string;
}

/**
 * Which visit each session is playing, shared by every copy of this module in the process: pi loads each
 * extension through its own module instance, so a scripted model registered by one extension must still
 * see the bindings made by pi-flows' subagents in another.
 */
const BINDINGS_KEY = Symbol.for("pi-flows.scripted.bindings");
const bindings: Map<string, Binding> = ((globalThis as Record<symbol, unknown>)[BINDINGS_KEY] ??= new Map<
	string,
	Binding
>()) as Map<string, Binding>;

/** Says which visit a scripted session's next requests belong to (any scripted model in the process). */
export function bindScriptedTurn(sessionId: string, visit: string): void {
	bindings.set(sessionId, { visit });
}

/** Forgets a closed session. */
export function unbindScriptedTurn(sessionId: string): void {
	bindings.delete(sessionId);
}

/** Builds the provider for one script. */
export function createScriptedModel(script: Script): ScriptedModel {
	const core = createFauxCore({
		provider: SCRIPTED_PROVIDER,
		api: "scripted",
		// A reasoning model, so a thinking level set by a flow or a chain reaches the request (and `{{thinking}}`).
		models: [
			{
				id: SCRIPTED_MODEL,
				name: "Scripted model",
				reasoning: true,
				contextWindow: script.contextWindow,
				maxTokens: 16_384,
				...(script.price ? { cost: script.price } : {}),
			},
		],
	});
	// A visit's cursor: retries of the same visit continue where the last attempt stopped, so a script can
	// say "fail, then answer".
	const cursors = new Map<string, number>();
	let calls = 0;
	const answer = async (
		context: Context,
		options: { sessionId?: string; signal?: AbortSignal; reasoning?: string } | undefined,
	): Promise<AssistantMessage> => {
		calls++;
		const visit = (options?.sessionId && bindings.get(options.sessionId)?.visit) || "main";
		const index = cursors.get(visit) ?? 0;
		const refused = script.check?.({ visit, index, messages: context.messages });
		// Refused without moving the cursor: a retry of the visit is asked the same request again.
		if (refused !== undefined) {
			return fauxAssistantMessage([], { stopReason: "error", errorMessage: refused });
		}
		const found = stepsFor(script, visit);
		if (!found) {
			return fauxAssistantMessage([], {
				stopReason: "error",
				errorMessage: `the script ${script.file} has no steps for node \`${visit}\`: add a \`${visit.split("/").pop()}:\` entry under \`turns:\``,
			});
		}
		const step = found.steps[index];
		if (!step) {
			return fauxAssistantMessage([], {
				stopReason: "error",
				errorMessage: `the script's ${found.steps.length} step(s) for \`${found.key}\` are used up${found.key === visit ? "" : ` at visit \`${visit}\``} (request ${index + 1})`,
			});
		}
		cursors.set(visit, index + 1);
		const wait = script.latencyMs + (step.delayMs ?? 0);
		if (wait > 0) await sleep(wait, options?.signal);
		if (step.hang) await sleep(Number.POSITIVE_INFINITY, options?.signal);
		return messageFor(step, context, options?.reasoning);
	};
	const dispatch = (
		model: Parameters<typeof core.stream>[0],
		context: Parameters<typeof core.stream>[1],
		options?: Parameters<typeof core.stream>[2],
	) => {
		// The faux core takes one queued step per request, synchronously: queue exactly ours.
		core.setResponses([
			(ctx) =>
				answer(ctx as unknown as Context, options as { sessionId?: string; signal?: AbortSignal; reasoning?: string }),
		]);
		// The faux core keeps every session's last prompt forever to simulate prompt caching; a long run
		// would grow by a prompt per session. Without the session id it keeps nothing, and usage counts
		// the whole prompt as input, as a provider without caching would.
		const stream = core.stream(model, context, options ? { ...options, sessionId: undefined } : options);
		// The faux core reports every answer at $0; a priced script prices it as pi prices a real model's.
		if (script.price) priceAnswers(stream, model);
		return stream;
	};
	const provider = createProvider({
		id: SCRIPTED_PROVIDER,
		name: "Scripted model (pi-flows)",
		auth: { apiKey: { name: "Scripted", resolve: async () => ({ auth: {} }) } },
		models: core.models,
		api: {
			stream: dispatch,
			streamSimple: dispatch,
			fetchDeferred: core.fetchDeferred,
			cancelDeferred: core.cancelDeferred,
		},
	} as Parameters<typeof createProvider>[0]);
	return {
		provider,
		// A visit path is unique in a run, so its cursor lives for the run: every attempt of a visit, on the
		// same subagent or a fresh one after a timeout, continues where the last stopped.
		bind: bindScriptedTurn,
		unbind: unbindScriptedTurn,
		calls: () => calls,
	};
}

/** Prices each finished answer of `stream` from the model's table, before pi reads its usage. */
function priceAnswers(stream: { push(event: unknown): void }, model: Parameters<typeof calculateCost>[0]): void {
	const push = stream.push.bind(stream);
	stream.push = (event: unknown) => {
		const e = event as { type?: string; message?: AssistantMessage; error?: AssistantMessage };
		const message = e.type === "done" ? e.message : e.type === "error" ? e.error : undefined;
		if (message?.usage) calculateCost(model, message.usage);
		push(event);
	};
}

function messageFor(step: ScriptStep, context: Context, reasoning?: string): AssistantMessage {
	if (step.fail !== undefined) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
	const blocks = [];
	if (step.thinking) blocks.push(fauxThinking(step.thinking));
	const filled = (t: string) => (step.literal ? t : fill(t, context, reasoning));
	if (step.say !== undefined) blocks.push(fauxText(filled(step.say)));
	for (const call of step.calls) {
		const args = step.literal ? call.args : fillArgs(call.args, filled);
		blocks.push(fauxToolCall(call.name, args as Parameters<typeof fauxToolCall>[1]));
	}
	const stopReason = step.calls.length > 0 ? "toolUse" : step.length ? "length" : "stop";
	return fauxAssistantMessage(blocks, { stopReason });
}

/**
 * Fills `{{result}}`, `{{task}}` and `{{section:NAME}}`, each optionally `|lines:N`, and `{{messages}}`,
 * the number of messages the model was sent (how a test sees that a subagent kept its conversation).
 */
export function fill(template: string, context: Context, reasoning?: string): string {
	return fillTemplate(template, {
		messages: context.messages.length,
		thinking: reasoning ?? "off",
		system: () => systemText(context),
		result: () => lastToolResult(context.messages),
		task: () => lastUserText(context.messages),
		// pi declares tools on system messages (`toolsAdded`/`toolsRemoved`); older callers put them on the context.
		tools: () =>
			(context.tools?.length ? context.tools : getCurrentTools(context.messages)).map((t) => t.name).join(", "),
	});
}

/** The system prompt the model was sent. */
function systemText(context: Context): string {
	const c = context as unknown as { systemPrompt?: string; messages: { role: string }[] };
	if (typeof c.systemPrompt === "string") return c.systemPrompt;
	const sys = c.messages.find((m) => m.role === "system");
	return sys ? getSystemMessageText(sys as Parameters<typeof getSystemMessageText>[0]) : "";
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

function lastToolResult(messages: Message[]): string {
	for (let i = messages.length - 1; i >= 0; i--)
		if (messages[i].role === "toolResult") return textOf(messages[i].content);
	return "";
}

function lastUserText(messages: Message[]): string {
	for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return textOf(messages[i].content);
	return "";
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		if (signal?.aborted) return resolve();
		const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
		function done() {
			if (timer) clearTimeout(timer);
			signal?.removeEventListener("abort", done);
			resolve();
		}
		signal?.addEventListener("abort", done, { once: true });
	});
}
