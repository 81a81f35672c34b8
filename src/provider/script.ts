/**
 * The provider server's script as data, for the `pi-flows provider` command and for tests that read
 * better as a table: rules matched in order against each request, each with the faults its first
 * matching requests meet and the replies its conversation gets, turn by turn.
 *
 *   max-concurrent: 3
 *   rules:
 *     - when: "item 3"              # the task (last user message) contains this
 *       faults: [429, cut]          # its 1st matching request gets a 429, its 2nd a cut stream
 *       replies:                    # by request in the conversation; the last one repeats
 *         - tools: [{ name: submit, args: { ok: true } }]
 *   default: { text: ok }
 */
import { parse } from "yaml";
import type { ProviderServerOptions } from "./server.ts";
import type { Answer, Fault, FaultName, Reply, WireRequest } from "./types.ts";

/** One rule of a data script. */
export interface ScriptRule {
	/** The task (the last user message) contains this. */
	when?: string;
	/** The system prompt contains this (picks an agent). */
	system?: string;
	/** Faults for the first matching requests, one each, in order. */
	faults?: (FaultName | number | Fault)[];
	/** Replies by the request's turn in its conversation (0 = the first); the last repeats. */
	replies?: Reply[];
	/** One reply for every turn. */
	reply?: Reply;
}

/** A data script. */
export interface DataScript {
	rules?: ScriptRule[];
	default?: Reply;
	/** Server options. */
	"max-concurrent"?: number;
	"limit-retry-after"?: number;
	"latency-ms"?: number;
}

const FAULTS: readonly string[] = ["429", "529", "500", "502", "503", "cut", "stall", "malformed", "reset"];

/** A responder from a data script; its fault counters live as long as it does. */
export function scriptResponder(script: DataScript): (request: WireRequest) => Answer {
	const rules = script.rules ?? [];
	const used = rules.map(() => 0);
	return (request) => {
		for (let i = 0; i < rules.length; i++) {
			const r = rules[i];
			if (r.when !== undefined && !request.lastUser.includes(r.when)) continue;
			if (r.system !== undefined && !request.system.includes(r.system)) continue;
			const fault = r.faults?.[used[i]];
			if (fault !== undefined) {
				used[i]++;
				return typeof fault === "object" ? fault : { fault: String(fault) as FaultName };
			}
			const replies = r.replies ?? (r.reply ? [r.reply] : undefined);
			if (replies?.length) return replies[Math.min(request.turn, replies.length - 1)];
			return script.default ?? { text: "ok" };
		}
		return script.default ?? { text: "ok" };
	};
}

/** Reads a YAML data script into server options, or says what is wrong with it. */
export function readProviderScript(
	text: string,
): { ok: true; value: ProviderServerOptions } | { ok: false; error: string } {
	let data: unknown;
	try {
		data = parse(text, { maxAliasCount: 100 });
	} catch (error) {
		return { ok: false, error: `the script is not YAML: ${(error as Error).message}` };
	}
	const script = (data ?? {}) as DataScript;
	if (typeof script !== "object" || Array.isArray(script))
		return { ok: false, error: "the script is a mapping with `rules` and `default`" };
	for (const [i, r] of (script.rules ?? []).entries()) {
		for (const f of r.faults ?? []) {
			const name = typeof f === "object" ? String(f.fault) : String(f);
			if (!FAULTS.includes(name))
				return { ok: false, error: `rules[${i}]: unknown fault \`${name}\` (one of ${FAULTS.join(", ")})` };
		}
	}
	return {
		ok: true,
		value: {
			script: scriptResponder(script),
			...(script["max-concurrent"] !== undefined ? { maxConcurrent: script["max-concurrent"] } : {}),
			...(script["limit-retry-after"] !== undefined ? { limitRetryAfter: script["limit-retry-after"] } : {}),
			...(script["latency-ms"] !== undefined ? { latencyMs: script["latency-ms"] } : {}),
		},
	};
}
