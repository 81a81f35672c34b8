import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/providers/faux";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness, textOf } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

/** An agent that checkpoints on every turn until told resets are used up, then finishes. */
function checkpointEveryTurn(reset: "compact" | "session", turns: number): FauxResponseStep[] {
	let n = 0;
	const step: FauxResponseStep = (context) => {
		n++;
		const last = context.messages.findLast((m) => m.role === "toolResult");
		if (last && textOf(last.content).includes("used up")) {
			return fauxAssistantMessage(
				[
					fauxToolCall(
						"finish",
						{ status: "partial", summary: "Stopped by the breaker.", next_task: "Carry on." },
						{ id: `f${n}` },
					),
				],
				{ stopReason: "toolUse" },
			);
		}
		return fauxAssistantMessage(
			[fauxToolCall("checkpoint", { summary: `Milestone ${n}.`, next_task: "More.", reset }, { id: `c${n}` })],
			{ stopReason: "toolUse" },
		);
	};
	return Array.from({ length: turns }, () => step);
}

describe("the reset breaker", () => {
	it("stops an agent that checkpoints every turn after HANDOFF_MAX_RESETS compact resets", async () => {
		h = await startHarness({
			env: { HANDOFF_MAX_RESETS: "2" },
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			responses: checkpointEveryTurn("compact", 10),
		});
		await h.session.prompt("Work.");
		await h.waitFor(
			() =>
				h?.session.messages.some((m) => m.role === "toolResult" && m.toolName === "finish") === true &&
				h.session.isIdle,
			"finish",
		);
		const compactions = h.session.sessionManager.getBranch().filter((e) => e.type === "compaction");
		expect(compactions).toHaveLength(2);
		// checkpoint, checkpoint, checkpoint (not reset: breaker), finish.
		expect(h.faux.state.callCount).toBe(4);
		expect(h.notes.some((n) => n.level === "warning" && n.text.includes("2 of 2"))).toBe(true);
	});

	it("holds across sessions: session resets stop at the limit instead of starting over in each new session", async () => {
		h = await startHarness({ env: { HANDOFF_MAX_RESETS: "2" }, responses: checkpointEveryTurn("session", 10) });
		await h.session.prompt("Work.");
		await h.waitFor(
			() =>
				h?.session.messages.some((m) => m.role === "toolResult" && m.toolName === "finish") === true &&
				h.session.isIdle,
			"finish",
		);
		// The first session and two cuts; the third checkpoint only saves.
		expect(new Set(h.events.map((e) => e.sessionId)).size).toBe(3);
		expect(h.faux.state.callCount).toBe(4);
	});
});
