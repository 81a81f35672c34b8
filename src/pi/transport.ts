/**
 * Transport retries applied to pi: the session's stream function is wrapped so each model request passes
 * its provider's gate, and a request that failed in transit is sent again after a backoff, before pi sees
 * anything. pi sees one answer per request, so a tool call is executed once, from the answer that
 * arrived whole; the tools that ran before the failed request have their results in the context it
 * repeats. What a failed attempt billed (a cut Anthropic stream reports its input first) is handed to
 * `billed`, because pi never sees that attempt.
 */
import type { Agent } from "@earendil-works/pi-agent-core";
import {
	type AssistantMessage,
	type AssistantMessageEvent,
	calculateCost,
	createAssistantMessageEventStream,
	isRetryableAssistantError,
} from "@earendil-works/pi-ai";
import { formatDuration } from "../runtime/index.ts";
import type { Gate } from "../runtime/index.ts";
import {
	limitStatus,
	parseRetryAfter,
	retryDelay,
	type TransportPolicy,
	type TransportRetry,
	transientStatus,
} from "../runtime/index.ts";

/** What the wrapper reports to the turn it serves (set per ask). */
export interface TransportHooks {
	/** A sign of life: a frame arrived, or a wait goes on. */
	touch(): void;
	/** A request failed in transit and will be sent again. */
	retry(r: TransportRetry): void;
	/** Usage a failed attempt reported (and the provider bills) that pi will never count. */
	billed(usage: AssistantMessage["usage"]): void;
}

type StreamFn = Agent["streamFunction"];

/** Wraps `agent.streamFunction`; `hooks()` is read per request so each ask can plug its own. */
export function wrapTransport(
	agent: Agent,
	policy: TransportPolicy,
	gate: Gate | undefined,
	hooks: () => TransportHooks | undefined,
): void {
	const inner: StreamFn = agent.streamFunction;
	const wrapped: StreamFn = async (model, context, options) => {
		const outer = options?.signal;
		let waited = 0;
		for (let attempt = 1; ; attempt++) {
			const h = hooks();
			let pass: Awaited<ReturnType<Gate["enter"]>> | undefined;
			if (gate) {
				// Waiting for the provider's window is a sign of life too: the turn is queued, not hung.
				const tick = setInterval(() => hooks()?.touch(), 1000);
				try {
					pass = await gate.enter(outer);
				} catch {
					return settled(abortedMessage(model), []);
				} finally {
					clearInterval(tick);
				}
			}
			const seen: { status?: number; retryAfterMs?: number } = {};
			const own = new AbortController();
			const onAbort = () => own.abort(outer?.reason);
			outer?.addEventListener("abort", onAbort, { once: true });
			const baseFetch = options?.fetch ?? globalThis.fetch;
			const fetch: typeof globalThis.fetch = async (input, init) => {
				// The stall clock starts when the request leaves: loading a provider's SDK is not a stall.
				arm();
				const response = await baseFetch(input, init);
				arm();
				seen.status = response.status;
				seen.retryAfterMs = parseRetryAfter(response.headers);
				return response;
			};
			let stalled = false;
			let timer: ReturnType<typeof setTimeout> | undefined;
			let armed = false;
			const arm = () => {
				armed = true;
				if (timer) clearTimeout(timer);
				timer = setTimeout(() => {
					stalled = true;
					own.abort(new Error("stalled"));
				}, policy.stallMs);
			};
			const events: AssistantMessageEvent[] = [];
			let final: AssistantMessage;
			try {
				const stream = await inner(model, context, { ...options, signal: own.signal, fetch, maxRetries: 0 });
				for await (const event of stream) {
					events.push(event);
					h?.touch();
					if (armed) arm();
				}
				final = await stream.result();
			} catch (error) {
				// A stream function reports failures inside the stream; a throw is a wiring fault, still a value here.
				final = {
					...abortedMessage(model),
					stopReason: "error",
					errorMessage: (error as Error)?.message ?? String(error),
				};
			} finally {
				if (timer) clearTimeout(timer);
				outer?.removeEventListener("abort", onAbort);
			}
			if (stalled && !outer?.aborted) {
				final = {
					...final,
					stopReason: "error",
					errorMessage: `stalled: no data from the provider for ${formatDuration(policy.stallMs)}`,
				};
			}
			const transient =
				!outer?.aborted &&
				final.stopReason === "error" &&
				(stalled ||
					(seen.status !== undefined && seen.status !== 200
						? transientStatus(seen.status)
						: isRetryableAssistantError(final)));
			const answered = final.stopReason !== "error" && final.stopReason !== "aborted";
			pass?.leave(
				transient && seen.status !== undefined && limitStatus(seen.status) ? "limited" : answered ? "ok" : "failed",
			);
			if (!transient) return settled(final, events);
			// This attempt is lost, but what it reported was billed.
			const usage = { ...final.usage, cost: calculateCost(model, { ...final.usage }) };
			if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0) h?.billed(usage);
			const reason = stalled
				? "stall"
				: seen.status === undefined
					? "network"
					: seen.status !== 200
						? String(seen.status)
						: "cut";
			const delayMs = retryDelay(policy, attempt, seen.retryAfterMs);
			const tooLong = delayMs > policy.maxDelayMs;
			if (attempt >= policy.attempts || tooLong || waited + delayMs > policy.totalWaitMs) {
				const why = tooLong
					? `the provider asked to wait ${formatDuration(Math.ceil((seen.retryAfterMs ?? delayMs) / 1000) * 1000)}, over the ${formatDuration(policy.maxDelayMs)} allowed`
					: attempt >= policy.attempts
						? `${attempt} attempts`
						: `${Math.round(waited / 1000)}s of waiting (next wait ${Math.ceil(delayMs / 1000)}s, ${Math.round(policy.totalWaitMs / 1000)}s allowed)`;
				return settled(
					{ ...final, errorMessage: `${final.errorMessage ?? "transport failure"} (gave up after ${why})` },
					events,
				);
			}
			h?.retry({
				attempt,
				reason,
				message: final.errorMessage ?? "",
				delayMs,
				...(seen.retryAfterMs !== undefined ? { retryAfterMs: seen.retryAfterMs } : {}),
			});
			if (!(await sleep(delayMs, outer, () => hooks()?.touch()))) return settled(abortedMessage(model), []);
			waited += delayMs;
		}
	};
	agent.streamFunction = wrapped;
}

/** A stream that replays an attempt's events and ends on `final`. */
function settled(final: AssistantMessage, events: AssistantMessageEvent[]) {
	const out = createAssistantMessageEventStream();
	for (const e of events) {
		if (e.type === "done" || e.type === "error") continue;
		out.push(e);
	}
	if (final.stopReason === "error" || final.stopReason === "aborted")
		out.push({ type: "error", reason: final.stopReason, error: final });
	else out.push({ type: "done", reason: final.stopReason as "stop" | "length" | "toolUse", message: final });
	out.end(final);
	return out;
}

function abortedMessage(model: { api: string; provider: string; id: string }): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "aborted",
		errorMessage: "Request was aborted",
		timestamp: Date.now(),
	} as AssistantMessage;
}

/** Waits, touching every second; false when the signal aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined, touch: () => void): Promise<boolean> {
	return new Promise((resolve) => {
		if (signal?.aborted) return resolve(false);
		const tick = setInterval(touch, 1000);
		const t = setTimeout(() => {
			clearInterval(tick);
			signal?.removeEventListener("abort", onAbort);
			resolve(true);
		}, ms);
		const onAbort = () => {
			clearTimeout(t);
			clearInterval(tick);
			resolve(false);
		};
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}
