/**
 * Issue 16: a swarm member's request lost in transit is retried below the flow like an agent visit's, and
 * the retry is the flow's `provider_retry` event (the live view and the report read those) and is counted
 * in the run's usage, which equals what the server billed.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { billedOf, runOverWire, serverBill, type Wire, wireProject } from "../helpers/wire.ts";

let wire: Wire | undefined;
afterEach(async () => {
	await wire?.close();
	wire = undefined;
});

const FLOW = `---
name: crowd
description: two scouts on one board
input: string
nodes:
  - id: survey
    swarm: [{ agent: scout, count: 2 }]
    rounds: 1
---

## survey

Say what you see.
`;

describe("a swarm over the wire", () => {
	it("reports each member's transport retry as a provider_retry event of the swarm's visit, counted in usage", async () => {
		let n = 0;
		wire = await wireProject({
			// The first request meets a 429, the second a cut stream; every request after is answered.
			script: () => {
				n++;
				if (n === 1) return { fault: "429", retryAfter: 0.02 };
				if (n === 2) return { fault: "cut", reply: { text: "A post the network will cut before it ends whole." } };
				return { text: "I see a quiet repository." };
			},
		});
		const { result, events, host } = await runOverWire(wire, "crowd", FLOW, "wire/wire-1");
		expect(result.ok, result.error).toBe(true);
		const retries = events.filter(
			(e): e is Extract<FlowEvent, { type: "provider_retry" }> => e.type === "provider_retry",
		);
		expect(retries.map((r) => r.reason).sort()).toEqual(["429", "cut"]);
		for (const r of retries) {
			expect(r).toMatchObject({ path: "survey", agent: "scout", model: "wire/wire-1", attempt: 1 });
			expect(r.subagent).toMatch(/^scout#/);
		}
		expect(retries.find((r) => r.reason === "429")?.retryAfterMs).toBe(20);
		// The swarm's visit carries the retries into the run's usage, and that usage is the bill.
		expect(result.usage.retries).toBe(2);
		const visit = result.visits.find((v) => v.path === "survey");
		expect(visit?.usage?.retries).toBe(2);
		expect(billedOf(result.usage)).toEqual(serverBill(wire.server));
		expect(host.open()).toBe(0);
	}, 60_000);
});
