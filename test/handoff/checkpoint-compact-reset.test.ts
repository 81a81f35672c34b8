import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/providers/faux";
import type { ContextUsage, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, padExtension, startHarness, textOf } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

/** Records context usage at every turn end, as our watermark sees it. */
function usageProbe(into: (ContextUsage | undefined)[]): ExtensionFactory {
	return (pi) => {
		pi.on("turn_end", (_e, ctx) => {
			into.push(ctx.getContextUsage());
		});
	};
}

const FILLER = 20_000;

describe("checkpoint with reset compact", () => {
	it("replaces the context with the document, with no summarising model call, then resumes the agent", async () => {
		const usages: (ContextUsage | undefined)[] = [];
		let resumedWith: Context | undefined;
		h = await startHarness({
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			tools: ["read", "finish", "checkpoint", "pad"],
			extensions: [padExtension(), usageProbe(usages)],
			responses: [
				fauxAssistantMessage([fauxToolCall("pad", { size: FILLER }, { id: "p1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage(
					[
						fauxToolCall(
							"checkpoint",
							{ summary: "Lexer written and tested.", next_task: "Write the parser.", reset: "compact" },
							{ id: "c1" },
						),
					],
					{ stopReason: "toolUse" },
				),
				(context) => {
					resumedWith = context;
					return fauxAssistantMessage("Continuing from the checkpoint.");
				},
			],
		});
		await h.session.prompt("Build the thing.");
		await h.waitFor(() => resumedWith !== undefined && h?.session.isIdle === true, "the resumed run");

		expect(h.errors).toEqual([]);
		// Three model calls: pad, checkpoint, the resumed turn. No summariser call in between.
		expect(h.faux.state.callCount).toBe(3);
		const compaction = h.session.sessionManager.getBranch().find((e) => e.type === "compaction");
		expect(compaction?.type === "compaction" && compaction.fromHook).toBe(true);
		expect(compaction?.type === "compaction" && compaction.summary).toContain("Lexer written and tested.");

		const seen = resumedWith?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(seen).toContain("Lexer written and tested.");
		expect(seen).not.toContain("x".repeat(100));

		const before = usages[1]?.tokens ?? 0;
		const after = h.session.getContextUsage()?.tokens ?? 0;
		console.info(`compact reset: context tokens at the checkpoint turn ${before}, after the resumed turn ${after}`);
		// The filler alone is about FILLER/4 tokens; the reset must drop at least nine tenths of it.
		expect(before).toBeGreaterThan(FILLER / 4);
		expect(before - after).toBeGreaterThan(0.9 * (FILLER / 4));
	});

	it("leaves a human /compact alone", async () => {
		h = await startHarness({
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			tools: ["read", "finish", "checkpoint", "pad"],
			extensions: [padExtension()],
			responses: [
				fauxAssistantMessage([fauxToolCall("pad", { size: 400 }, { id: "p1" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("done"),
				fauxAssistantMessage("the summariser's own summary"),
			],
		});
		await h.session.prompt("Pad a bit.");
		const result = await h.session.compact();
		expect(result.summary).toContain("the summariser's own summary");
	});

	it("resumes the agent when pi cannot compact (a small session), in a fresh session instead of leaving it stopped", async () => {
		let resumedWith: Context | undefined;
		h = await startHarness({
			responses: [
				fauxAssistantMessage([fauxToolCall("checkpoint", { summary: "Tiny step.", reset: "compact" }, { id: "c1" })], {
					stopReason: "toolUse",
				}),
				(context) => {
					resumedWith = context;
					return fauxAssistantMessage("Carrying on.");
				},
			],
		});
		await h.session.prompt("Go.");
		await h.waitFor(() => resumedWith !== undefined && h?.session.isIdle === true, "the resumed run");
		expect(h.session.sessionManager.getBranch().some((e) => e.type === "compaction")).toBe(false);
		// The fallback is the session cut (see reset-is-a-reset.test.ts for what the new context holds).
		expect(textOf(resumedWith?.messages.at(-1)?.content)).toContain("Continue the task from the checkpoint document");
		expect(h.notes.some((n) => n.level === "warning" && n.text.includes("cannot compact this session"))).toBe(true);
	});

	it("does not reset in a headless run; the checkpoint only saves and the run goes on", async () => {
		h = await startHarness({
			mode: "print",
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
			responses: [
				fauxAssistantMessage([fauxToolCall("checkpoint", { summary: "Saved.", reset: "compact" }, { id: "c1" })], {
					stopReason: "toolUse",
				}),
				fauxAssistantMessage("Still here."),
			],
		});
		await h.session.prompt("Go.");
		expect(h.faux.state.callCount).toBe(2);
		expect(h.session.sessionManager.getBranch().some((e) => e.type === "compaction")).toBe(false);
		const result = h.session.messages.find((m) => m.role === "toolResult");
		expect(textOf(result?.content)).toContain("No reset in a headless run");
		expect(h.session.getLastAssistantText()).toBe("Still here.");
	});
});
