/**
 * Each model request a session sends, told to whoever asked (`SpawnRequest.onRequest`): the session's
 * stream function is wrapped, outermost, so a request is told once however many transport retries it
 * took inside (`transport.ts` retries below it), and its end carries the answer as pi received it.
 *
 *   start  { phase: "start", provider: "wire", model: "wire-1", server: "127.0.0.1:41577" }
 *   end    { phase: "end", …, responseModel: "wire-1", finish: "tool_calls", usage: { input: 120, … } }
 */
import type { Agent } from "@earendil-works/pi-agent-core";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { ModelRequest } from "../runtime/index.ts";

type StreamFn = Agent["streamFunction"];

/** Wraps `agent.streamFunction` so `tell` hears every request's start and end. Call after `wrapTransport`. */
export function observeRequests(agent: Agent, tell: (request: ModelRequest) => void): void {
	const inner: StreamFn = agent.streamFunction;
	const observed: StreamFn = async (model, context, options) => {
		const who = { provider: model.provider, model: model.id, ...serverOf(model.baseUrl) };
		tell({ phase: "start", ...who });
		const ended = (final: AssistantMessage | undefined, thrown?: unknown) =>
			tell({
				phase: "end",
				...who,
				...(final?.responseModel ? { responseModel: final.responseModel } : {}),
				...(final?.responseId ? { responseId: final.responseId } : {}),
				finish: final?.rawStopReason ?? finishOf(final?.stopReason),
				...(final?.stopReason === "error" || final?.stopReason === "aborted" || !final
					? { error: final?.errorMessage ?? errorText(thrown) ?? final?.stopReason ?? "the request failed" }
					: {}),
				usage: {
					input: final?.usage.input ?? 0,
					output: final?.usage.output ?? 0,
					cacheRead: final?.usage.cacheRead ?? 0,
					cacheWrite: final?.usage.cacheWrite ?? 0,
					cost: final?.usage.cost.total ?? 0,
				},
				// What went in and came out, only if an observer asks; the request's own objects, not copies.
				content: () => ({ messages: context.messages, output: final?.content ?? [] }),
			});
		let stream: Awaited<ReturnType<StreamFn>>;
		try {
			stream = await inner(model, context, options);
		} catch (error) {
			ended(undefined, error);
			throw error;
		}
		stream.result().then(
			(final) => ended(final),
			(error: unknown) => ended(undefined, error),
		);
		return stream;
	};
	agent.streamFunction = observed;
}

/** pi's stop reason in the words providers use, where the provider's own was not kept. */
function finishOf(reason: string | undefined): string {
	if (reason === "toolUse") return "tool_calls";
	return reason ?? "error";
}

/** `host:port` of a base URL (the port the scheme implies when none is written); none for an in-process model. */
function serverOf(baseUrl: string | undefined): { server?: string } {
	if (!baseUrl) return {};
	try {
		const url = new URL(baseUrl);
		// A port of 0 listens nowhere: the scripted model's placeholder URL, not a server.
		if (url.port === "0") return {};
		const port = url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
		return { server: port ? `${url.hostname}:${port}` : url.hostname };
	} catch {
		return {};
	}
}

function errorText(error: unknown): string | undefined {
	if (error === undefined) return undefined;
	return error instanceof Error ? error.message : String(error);
}
