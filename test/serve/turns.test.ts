/**
 * The turns in flight as the page lists them, folded from a life's events: each turn's model, state,
 * latest calls and the text of its message as it grows (drafts, then the message's end), its retries;
 * gone once it ends.
 */
import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "../../src/report/index.ts";
import { emptyUsage } from "../../src/runtime/index.ts";
import { TOOLS_KEPT, turnsOf } from "../../src/serve/turns.ts";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const base = { path: "look", agent: "scout", subagent: "s1", life: 1 };

describe("turns in flight", () => {
	it("shows a turn waiting, then running with its calls and its text as it grows, until it ends", () => {
		const events: RecordedEvent[] = [
			{ type: "turn_wait", ...base, at: at(0) },
			{ type: "turn_start", ...base, model: "p/m", at: at(1) },
			{ type: "tool_call", ...base, tool: "read", args: { path: "README.md" }, at: at(2) },
			{ type: "message", ...base, text: "I am read", draft: true, at: at(3) },
			{ type: "message", ...base, text: "I am reading it now.", at: at(4) },
			{
				type: "provider_retry",
				...base,
				model: "p/m",
				attempt: 1,
				reason: "429",
				message: "slow down",
				delayMs: 1000,
				at: at(5),
			},
		];
		expect(turnsOf(events.slice(0, 1))).toMatchObject({ s1: { state: "waiting", model: "" } });
		const running = turnsOf(events);
		expect(running.s1).toMatchObject({
			state: "running",
			model: "p/m",
			since: Date.parse(at(1)),
			tools: [{ tool: "read", args: '{"path":"README.md"}' }],
			toolCount: 1,
			text: "I am reading it now.",
			retries: { count: 1, last: "429: slow down (retry in 1.0s)" },
		});
		expect(turnsOf(events.slice(0, 4)).s1?.text).toBe("I am read");
		const ended = [...events, { type: "turn_end", ...base, model: "p/m", ok: true, usage: emptyUsage(), at: at(6) }];
		expect(turnsOf(ended as RecordedEvent[])).toEqual({});
	});

	it("keeps a turn's latest calls and counts the rest", () => {
		const calls = Array.from({ length: TOOLS_KEPT + 3 }, (_, i) => ({
			type: "tool_call" as const,
			...base,
			tool: `t${i}`,
			args: {},
			at: at(i + 2),
		}));
		const t = turnsOf([{ type: "turn_start", ...base, model: "p/m", at: at(1) }, ...calls]).s1;
		expect(t?.toolCount).toBe(TOOLS_KEPT + 3);
		expect(t?.tools.map((c) => c.tool)).toEqual(calls.slice(-TOOLS_KEPT).map((c) => c.tool));
	});
});
