/**
 * Issue 16: flows over HTTP through pi's real provider code, against a server that fails as providers do.
 * Transient faults (429 with retry-after, 529, 500, 503, a reset, a cut stream, a stall) are retried per
 * request below the flow: every visit ends ok, the node's `retry:` is not spent, each retry is an event,
 * and the usage recorded equals what the server billed, to the token and the cent.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Answer, FaultName, WireRequest } from "../../src/provider/index.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { billedOf, FAST, itemOf, mapFlow, runOverWire, serverBill, type Wire, wireProject } from "../helpers/wire.ts";

const submit = (req: WireRequest): Answer => ({
	tools: [{ name: "submit", args: { item: itemOf(req.lastUser), note: `seen ${itemOf(req.lastUser)}` } }],
});

/** Faults per item: the n-th request about that item meets the n-th fault, then it is answered. */
const PLAN: Record<string, (FaultName | { fault: FaultName; retryAfter: number })[]> = {
	"item-1": [{ fault: "429", retryAfter: 0.05 }],
	"item-2": ["cut"],
	"item-3": [{ fault: "529", retryAfter: 0.02 }],
	"item-4": ["500"],
	"item-5": [{ fault: "503", retryAfter: 0.01 }],
	"item-6": ["reset"],
	"item-7": ["stall"],
	"item-8": [{ fault: "429", retryAfter: 0.01 }, "cut"],
};

function planned(then: (req: WireRequest) => Answer = submit) {
	const seen = new Map<string, number>();
	return (req: WireRequest): Answer => {
		const item = itemOf(req.lastUser);
		const n = seen.get(item) ?? 0;
		seen.set(item, n + 1);
		const f = PLAN[item]?.[n];
		if (f === undefined) return then(req);
		const fault = typeof f === "string" ? { fault: f } : f;
		return {
			...fault,
			reply: { text: "A partial answer that the network will not deliver whole to the client.", tools: [] },
		};
	};
}

let wire: Wire | undefined;
afterEach(async () => {
	await wire?.close();
	wire = undefined;
});

const retriesOf = (events: FlowEvent[]) =>
	events.filter((e): e is Extract<FlowEvent, { type: "provider_retry" }> => e.type === "provider_retry");

describe.each([
	["OpenAI chat-completions", "wire/wire-1"],
	["Anthropic messages", "wire-anthropic/wire-1"],
])("a 12-item map over %s with every kind of transient fault", (_api, model) => {
	it("ends with every visit ok, one turn per visit, each retry an event, and usage equal to the bill", async () => {
		wire = await wireProject({ script: planned() });
		const { result, events, host } = await runOverWire(wire, "look-around", mapFlow("look-around", 12, 4), model);
		expect(result.ok, result.error).toBe(true);
		const entries = result.output as unknown as { item: string }[];
		expect(entries.map((e) => e.item)).toEqual(Array.from({ length: 12 }, (_, i) => `item-${i + 1}`));
		// The node's retry was never used: each visit played exactly one turn.
		const turns = events.filter((e) => e.type === "turn_start");
		expect(turns).toHaveLength(12);
		const retries = retriesOf(events);
		expect(retries.map((r) => `${r.path} ${r.reason}`).sort()).toEqual(
			["1 429", "2 cut", "3 529", "4 500", "5 503", "6 network", "7 stall", "8 429", "8 cut"]
				.map((x) => `look[${x.split(" ")[0]}]/find ${x.split(" ")[1]}`)
				.sort(),
		);
		const first = retries.find((r) => r.path === "look[1]/find");
		expect(first).toMatchObject({ reason: "429", retryAfterMs: 50, attempt: 1 });
		expect(first?.delayMs).toBeGreaterThanOrEqual(50);
		expect(retries.filter((r) => r.path === "look[8]/find").map((r) => r.attempt)).toEqual([1, 2]);
		// The run's usage counts the retries and equals what the server billed, cost included.
		expect(result.usage.retries).toBe(9);
		expect(billedOf(result.usage)).toEqual(serverBill(wire.server));
		expect(result.usage.cost).toBeGreaterThan(0);
		expect(result.absorbed).toBeUndefined();
		expect(host.open()).toBe(0);
	}, 60_000);
});

describe("a retried request never repeats a tool call that already ran", () => {
	it("sends the tool's result again, not the call, after the stream is cut", async () => {
		const calls: string[] = [];
		let cuts = 0;
		wire = await wireProject({
			script: (req) => {
				if (req.turn === 0)
					return { text: "Let me read the notes.", tools: [{ name: "read", args: { path: "notes.txt" } }] };
				calls.push(
					req.messages
						.filter((m) => m.role === "tool")
						.map((m) => m.text)
						.join("|"),
				);
				if (cuts++ === 0)
					return { fault: "cut", reply: { text: "Half of an answer that is cut before the submit call arrives." } };
				return {
					tools: [
						{ name: "submit", args: { item: "notes", note: req.messages.find((m) => m.role === "tool")?.text ?? "" } },
					],
				};
			},
		});
		wire.project.write("notes.txt", "the notes say 42\n");
		const flow = `---
name: read-once
description: one tool, then a cut
input: string
nodes:
  - id: find
    agent: scout
    output: { item: string, note: string }
---

## find

Read notes.txt and report.
`;
		const { result, events } = await runOverWire(wire, "read-once", flow, "wire/wire-1");
		expect(result.ok, result.error).toBe(true);
		const tools = events.filter((e) => e.type === "tool_call").map((e) => (e as { tool: string }).tool);
		expect(tools).toEqual(["read", "submit"]);
		expect(calls).toHaveLength(2);
		expect(calls[0]).toContain("the notes say 42");
		expect(calls[1]).toBe(calls[0]);
		expect(retriesOf(events).map((r) => r.reason)).toEqual(["cut"]);
		expect((result.output as { note: string }).note).toContain("the notes say 42");
		expect(billedOf(result.usage)).toEqual(serverBill(wire.server));
	}, 30_000);
});

describe("nothing is absorbed silently", () => {
	it("a visit that exhausts its retries fails with kind provider; on-fail: continue absorbs it and the result says so", async () => {
		wire = await wireProject({ script: (req) => (itemOf(req.lastUser) === "item-2" ? { fault: "503" } : submit(req)) });
		const { result, events } = await runOverWire(wire, "three", mapFlow("three", 3, 3, "", true), "wire/wire-1", {
			...FAST,
			attempts: 3,
		});
		expect(result.ok).toBe(true);
		const failed = result.visits.find((v) => v.path === "look[2]/find");
		expect(failed?.ok).toBe(false);
		expect(failed?.error).toMatch(/^provider: 503.*\(gave up after 3 attempts\)$/s);
		expect(retriesOf(events).filter((r) => r.path === "look[2]/find")).toHaveLength(2);
		expect(result.absorbed).toMatchObject({
			count: 1,
			byKind: { provider: 1 },
			visits: [{ path: "look[2]/find", kind: "provider" }],
		});
		expect(wire.server.ledger.filter((e) => e.outcome === "503")).toHaveLength(3);
		expect(billedOf(result.usage)).toEqual(serverBill(wire.server));
	}, 30_000);

	it("a flow's transport: goes over the run's settings", async () => {
		wire = await wireProject({ script: () => ({ fault: "500" }) });
		const { result, events } = await runOverWire(
			wire,
			"two",
			mapFlow("two", 1, 1, "transport:\n  attempts: 2\n  stall: 30s\n"),
			"wire/wire-1",
			{ ...FAST, attempts: 6 },
		);
		expect(result.ok).toBe(false);
		expect(result.visits.find((v) => v.path === "look[1]/find")?.error).toMatch(/gave up after 2 attempts\)$/);
		expect(retriesOf(events)).toHaveLength(1);
		expect(wire.server.requests).toHaveLength(2);
	}, 30_000);

	it("a wait longer than allowed gives up at once instead of sleeping", async () => {
		wire = await wireProject({ script: () => ({ fault: "429", retryAfter: 3600 }) });
		const { result } = await runOverWire(wire, "one", mapFlow("one", 1, 1), "wire/wire-1", {
			...FAST,
			maxDelayMs: 1000,
		});
		expect(result.ok).toBe(false);
		expect(result.failedAt).toBe("look[1]/find");
		expect(result.visits.find((v) => v.path === "look[1]/find")?.error).toMatch(
			/^provider: 429.*gave up after the provider asked to wait 1h, over the 1s allowed/s,
		);
		expect(wire.server.requests).toHaveLength(1);
	}, 30_000);
});

describe("bad input from a provider ends that request with a clear error, never a crash or a hang", () => {
	it("malformed SSE fails the visit with kind provider and is not retried as transient", async () => {
		wire = await wireProject({ script: () => ({ fault: "malformed" }) });
		const { result, events } = await runOverWire(wire, "bad-sse", mapFlow("bad-sse", 1, 1), "wire/wire-1");
		expect(result.ok).toBe(false);
		expect(result.failedAt).toBe("look[1]/find");
		expect(result.visits.find((v) => v.path === "look[1]/find")?.error).toMatch(/^provider: .*JSON/is);
		expect(retriesOf(events)).toHaveLength(0);
		expect(wire.server.requests).toHaveLength(1);
	}, 30_000);

	it("a call to an unknown tool goes back to the model as an error, and the turn goes on", async () => {
		wire = await wireProject({
			script: (req) => (req.turn === 0 ? { tools: [{ name: "teleport", args: { to: "mars" } }] } : submit(req)),
		});
		const { result } = await runOverWire(wire, "unknown-tool", mapFlow("unknown-tool", 1, 1), "wire/wire-1");
		expect(result.ok, result.error).toBe(true);
		const second = wire.server.requests[1];
		expect(second.messages.find((m) => m.role === "tool")?.text).toMatch(/teleport/i);
	}, 30_000);

	it("submit JSON that does not parse is refused back to the model; a model that never fixes it fails as schema", async () => {
		wire = await wireProject({
			script: (req) =>
				req.turn === 0 ? { tools: [{ name: "submit", args: '{"item": "item-1", "note": ' }] } : submit(req),
		});
		const fixed = await runOverWire(wire, "bad-json", mapFlow("bad-json", 1, 1), "wire/wire-1");
		expect(fixed.result.ok, fixed.result.error).toBe(true);
		expect(wire.server.requests[1].messages.find((m) => m.role === "tool")?.text).toBeTruthy();
		await wire.close();
		wire = await wireProject({
			script: (req) => (req.turn < 3 ? { tools: [{ name: "submit", args: "{nope" }] } : { text: "I give up." }),
		});
		const never = await runOverWire(wire, "bad-json", mapFlow("bad-json", 1, 1), "wire/wire-1");
		expect(never.result.ok).toBe(false);
		expect(never.result.visits.find((v) => v.path === "look[1]/find")?.error).toMatch(/^schema: /);
	}, 30_000);
});

describe("concurrency adapts to the provider", () => {
	it("a 64-item map at concurrency 8 against a server allowing 3 at once ends with every visit ok", async () => {
		wire = await wireProject({ script: submit, maxConcurrent: 3, limitRetryAfter: 0.02, latencyMs: 15 });
		const { result, events } = await runOverWire(wire, "wide", mapFlow("wide", 64, 8), "wire/wire-1");
		expect(result.ok, result.error).toBe(true);
		expect((result.output as unknown as unknown[]).length).toBe(64);
		expect(result.visits.filter((v) => v.kind === "agent" && v.ok)).toHaveLength(64);
		const limited = wire.server.ledger.filter((e) => e.outcome === "limited").length;
		expect(retriesOf(events)).toHaveLength(limited);
		// The window shrank: far fewer requests were refused than a fixed 8 at once would meet.
		expect(limited).toBeLessThan(64);
		expect(billedOf(result.usage)).toEqual(serverBill(wire.server));
	}, 120_000);
});
