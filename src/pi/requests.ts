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
		const provider = model.provider;
		const id = model.id;
		const server = serverOf(model.baseUrl);
		tell({ phase: "start", provider, model: id, server });
		const ended = (final: AssistantMessage | undefined, thrown?: unknown) => {
			const failed = !final || final.stopReason === "error" || final.stopReason === "aborted";
			const usage = final?.usage;
			tell({
				phase: "end",
				provider,
				model: id,
				server,
				responseModel: final?.responseModel,
				responseId: final?.responseId,
				finish: final?.rawStopReason ?? finishOf(final?.stopReason),
				error: failed
					? (final?.errorMessage ?? errorText(thrown) ?? final?.stopReason ?? "the request failed")
					: undefined,
				usage: {
					input: usage?.input ?? 0,
					output: usage?.output ?? 0,
					cacheRead: usage?.cacheRead ?? 0,
					cacheWrite: usage?.cacheWrite ?? 0,
					cost: usage?.cost.total ?? 0,
				},
				// What went in and came out, only if an observer asks; the request's own objects, not copies.
				content: () => ({ messages: context.messages, output: final?.content ?? [] }),
			});
		};
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

const servers = new Map<string, string | undefined>();

/** `host:port` of a base URL (the port the scheme implies when none is written); none for an in-process model. */
function serverOf(baseUrl: string | undefined): string | undefined {
	if (!baseUrl) return undefined;
	if (servers.has(baseUrl)) return servers.get(baseUrl);
	let server: string | undefined;
	try {
		const url = new URL(baseUrl);
		const port = url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
		// A port of 0 listens nowhere: the scripted model's placeholder URL, not a server.
		server = url.port === "0" ? undefined : port ? `${url.hostname}:${port}` : url.hostname;
	} catch {
		server = undefined;
	}
	if (servers.size < 64) servers.set(baseUrl, server);
	return server;
}

function errorText(error: unknown): string | undefined {
	if (error === undefined) return undefined;
	return error instanceof Error ? error.message : String(error);
}
