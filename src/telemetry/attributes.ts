/**
 * The attribute sets spans start with, built by assignment into one object (a span per visit and one per
 * request: spreads of small objects cost more than the span itself on a fast turn, bench/trace.ts).
 *
 *   visit items[2]/work  { pi_flows.visit.path, pi_flows.node, pi_flows.kind: "agent",
 *                          pi_flows.map.item: 2, pi_flows.bound.turns: 3, … }
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { SpanStatusCode } from "@opentelemetry/api";
import type { RequestUsage } from "../runtime/index.ts";
import { redactText } from "../secrets/index.ts";
import { EVENTS, GEN_AI, GENERAL, PF } from "./names.ts";
import { loopRoundOf, mapItemOf } from "../runtime/index.ts";
import { providerName } from "./providers.ts";

/** A node's worst case, as the checker computed it (structurally the checker's `Bound`). */
export interface TraceBound {
	turns: number;
	ms: number;
	waits: boolean;
}

/**
 * The map item and loop round a visit runs in, added to `into` (the nearest of each; which map or loop
 * they belong to is the visit path up to them, and the span's parent).
 */
export function placeAttributes(into: Attributes, path: string): void {
	if (path.includes("[")) {
		const item = mapItemOf(path);
		if (item) into[PF.mapItem] = item.item;
	}
	if (path.includes("#")) {
		const round = loopRoundOf(path);
		if (round) into[PF.loopRound] = round.round;
	}
}

/** A worst case, added to `into` (`waits` only when a person may be waited for). */
export function boundAttributes(into: Attributes, b: TraceBound | undefined): void {
	if (!b) return;
	into[PF.boundTurns] = b.turns;
	into[PF.boundMs] = b.ms;
	if (b.waits) into[PF.boundWaits] = true;
}

/** The model a span names: the conventions' provider, pi's own where it differs, the model id. */
export function modelAttributes(into: Attributes, provider: string | undefined, model: string | undefined): void {
	if (provider) {
		const name = providerName(provider);
		into[GEN_AI.provider] = name;
		if (name !== provider) into[PF.piProvider] = provider;
	}
	if (model) into[GEN_AI.requestModel] = model;
}

/**
 * The conventions' usage attributes from pi's counters: input tokens include the cached ones (as the
 * conventions ask; pi counts them apart). The cache counts and the cost are left out when 0, so an absent
 * one reads 0: on a fast turn every attribute's key is a good part of what a span costs to export.
 */
export function usageAttributes(into: Attributes, u: RequestUsage): Attributes {
	into[GEN_AI.inputTokens] = u.input + u.cacheRead + u.cacheWrite;
	into[GEN_AI.outputTokens] = u.output;
	if (u.cacheRead) into[GEN_AI.cacheReadTokens] = u.cacheRead;
	if (u.cacheWrite) into[GEN_AI.cacheCreationTokens] = u.cacheWrite;
	if (u.cost) into[PF.cost] = u.cost;
	return into;
}

/** `host:port` as `server.address` and `server.port`. */
export function serverAttributes(into: Attributes, server: string | undefined): void {
	if (!server) return;
	const colon = server.lastIndexOf(":");
	const port = colon > 0 ? Number(server.slice(colon + 1)) : Number.NaN;
	if (Number.isInteger(port)) {
		into[GENERAL.serverAddress] = server.slice(0, colon);
		into[GENERAL.serverPort] = port;
	} else into[GENERAL.serverAddress] = server;
}

/** A failure on a span: error status, `error.type`, and the conventions' exception event (redacted). */
export function fail(span: Span, kind: string, message: string): void {
	const text = redactText(message);
	span.setStatus({ code: SpanStatusCode.ERROR, message: text });
	span.setAttributes({ [GENERAL.errorType]: kind, [PF.failure]: kind });
	span.addEvent(EVENTS.exception, { [GENERAL.exceptionType]: kind, [GENERAL.exceptionMessage]: text });
}
