import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/providers/faux";
import type { ContextUsage, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { HANDOFF_TYPES } from "../../../src/extension/handoff/index.ts";
import { type Harness, padExtension, startHarness, textOf } from "../../handoff/helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

const WINDOW = 2000;

function usageProbe(into: (ContextUsage | undefined)[]): ExtensionFactory {
	return (pi) => {
		pi.on("turn_end", (_e, ctx) => {
			into.push(ctx.getContextUsage());
		});
	};
}

const pad = (id: string, size: number) =>
	fauxAssistantMessage([fauxToolCall("pad", { size }, { id })], { stopReason: "toolUse" });

function watermarkMessages(harness: Harness) {
	return harness.session.sessionManager
		.getBranch()
		.filter((e) => e.type === "custom_message" && e.customType === HANDOFF_TYPES.watermark);
}

describe("the watermark", () => {
	it("steers the landing directive once, at the first turn end at or above the threshold", async () => {
		const usages: (ContextUsage | undefined)[] = [];
		let nextCallSaw = "";
		h = await startHarness({
			contextWindow: WINDOW,
			tools: ["finish", "checkpoint", "pad"],
			extensions: [padExtension(), usageProbe(usages)],
			responses: [
				pad("p1", 40),
				pad("p2", 40),
				pad("p3", 3000),
				(context) => {
					nextCallSaw = textOf(context.messages.at(-1)?.content);
					return pad("p4", 40);
				},
				fauxAssistantMessage(
					[fauxToolCall("finish", { status: "partial", summary: "Landed.", next_task: "Go on." }, { id: "f1" })],
					{ stopReason: "toolUse" },
				),
			],
		});
		await h.session.prompt("Fill the context.");
		const fractions = usages.map((u) => (u?.tokens ?? 0) / WINDOW);
		console.info(`watermark: context fractions at each turn end ${fractions.map((f) => f.toFixed(3)).join(", ")}`);
		const fired = watermarkMessages(h);
		expect(fired).toHaveLength(1);
		const at = fractions.findIndex((f) => f >= 0.6);
		expect(at).toBeGreaterThan(0);
		expect(fractions.slice(0, at).every((f) => f < 0.6)).toBe(true);
		// The one directive carries the fraction of the turn that tripped it, and later turns above the line stay quiet.
		const details = fired[0].type === "custom_message" ? (fired[0].details as { fraction: number }) : undefined;
		expect(details?.fraction).toBeCloseTo(fractions[at], 10);
		expect(fractions.slice(at + 1).some((f) => f >= 0.6)).toBe(true);
		expect(fired[0].type === "custom_message" && String(fired[0].content)).not.toMatch(/\d+\s*%/);
		// Steered in before the very next model call, as the last thing it reads.
		expect(nextCallSaw).toContain("Time to hand over");
	});

	it("stays quiet below the threshold (HANDOFF_WATERMARK=0.95)", async () => {
		const usages: (ContextUsage | undefined)[] = [];
		h = await startHarness({
			contextWindow: WINDOW,
			env: { HANDOFF_WATERMARK: "0.95" },
			tools: ["finish", "checkpoint", "pad"],
			extensions: [padExtension(), usageProbe(usages)],
			responses: [pad("p1", 3000), fauxAssistantMessage("done")],
		});
		await h.session.prompt("Fill the context.");
		const top = Math.max(...usages.map((u) => (u?.tokens ?? 0) / WINDOW));
		expect(top).toBeGreaterThan(0.6);
		expect(top).toBeLessThan(0.95);
		expect(watermarkMessages(h)).toHaveLength(0);
	});

	it("never steers after finish, which would keep the finished run going", async () => {
		h = await startHarness({
			contextWindow: WINDOW,
			tools: ["finish", "checkpoint"],
			responses: [
				fauxAssistantMessage([fauxToolCall("finish", { status: "done", summary: "Done." }, { id: "f1" })], {
					stopReason: "toolUse",
				}),
				fauxAssistantMessage("victory lap"),
			],
		});
		await h.session.prompt(`Here is a long brief. ${"detail ".repeat(500)}`);
		expect((h.session.getContextUsage()?.tokens ?? 0) / WINDOW).toBeGreaterThan(0.6);
		expect(watermarkMessages(h)).toHaveLength(0);
		expect(h.faux.getPendingResponseCount()).toBe(1);
	});
});
