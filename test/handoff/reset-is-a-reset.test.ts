/**
 * A reset is a reset: after a checkpoint reset of any mode, the next request carries the seed and the
 * document and nothing of the old conversation, measured in tokens (chars / 4, pi's own estimate) on pi's
 * default compaction settings, where the kept recent tail used to leave most of a 30k-token session in
 * place. A session too small for pi to compact is cut to a fresh one instead, and the person is told so.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/providers/faux";
import { afterEach, describe, expect, it } from "vitest";
import { handoffAsContext, kickoffText, parseHandoff, resumeText } from "../../src/handoff/index.ts";
import { type Harness, padThenCheckpoint, padExtension, startHarness, textOf } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

/** Tokens as pi estimates them. */
const tokens = (text: string) => Math.ceil(text.length / 4);
const contextTokens = (context: Context | undefined) =>
	tokens((context?.messages ?? []).map((m) => textOf(m.content)).join("\n"));
// The compaction summary's wrapper pi adds around the document, and message framing: a fixed allowance.
const WRAPPING = 100;

function documentOnDisk(cwd: string) {
	const doc = parseHandoff(readFileSync(join(cwd, "HANDOFF.md"), "utf8")).value;
	if (!doc) throw new Error("no HANDOFF.md");
	return doc;
}

describe("after a reset the next request holds the seed and the document only", () => {
	it("compact, on pi's default keep-recent size, in a 30k-token session", async () => {
		let before: Context | undefined;
		let after: Context | undefined;
		h = await startHarness({
			tools: ["read", "finish", "checkpoint", "pad"],
			extensions: [padExtension()],
			responses: [
				fauxAssistantMessage([fauxToolCall("pad", { size: 120_000 }, { id: "p1" })], { stopReason: "toolUse" }),
				(context) => {
					before = context;
					return fauxAssistantMessage(
						[
							fauxToolCall(
								"checkpoint",
								{ summary: "Read the whole module.", next_task: "Write the parser.", reset: "compact" },
								{ id: "c1" },
							),
						],
						{ stopReason: "toolUse" },
					);
				},
				(context) => {
					after = context;
					return fauxAssistantMessage("Continuing from the checkpoint.");
				},
			],
		});
		await h.session.prompt("Build the thing.");
		await h.waitFor(() => after !== undefined && h?.session.isIdle === true, "the resumed run");
		expect(h.errors).toEqual([]);
		const doc = documentOnDisk(h.cwd);
		const seed = tokens(handoffAsContext(doc, "compact")) + tokens(resumeText({ kind: "reset" }));
		const was = contextTokens(before);
		const now = contextTokens(after);
		console.info(`compact reset on default settings: ${was} tokens before, ${now} after; seed + document ${seed}`);
		expect(was).toBeGreaterThan(30_000);
		expect(now).toBeLessThanOrEqual(seed + WRAPPING);
		const seen = after?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(seen).not.toContain("x".repeat(100));
		expect(seen).not.toContain("Build the thing.");
		// And the message says what happened, which is now true.
		expect(seen).toContain("Your context was reset to the checkpoint");
	});

	it("session: the new session's first request is the seed and the kickoff", async () => {
		let after: Context | undefined;
		h = await startHarness(
			padThenCheckpoint(
				40_000,
				{ summary: "Schema drafted.", next_task: "Implement the loader.", reset: "session" },
				(context) => {
					after = context;
					return fauxAssistantMessage("Picking up.");
				},
			),
		);
		await h.session.prompt("Start the task.");
		await h.waitFor(() => after !== undefined && h?.session.isIdle === true, "the run in the new session");
		const doc = documentOnDisk(h.cwd);
		const seed = tokens(handoffAsContext(doc, "cut")) + tokens(kickoffText("cut", doc));
		const now = contextTokens(after);
		console.info(`session reset: ${now} tokens in the next request; seed + document ${seed}`);
		expect(now).toBeLessThanOrEqual(seed + WRAPPING);
	});

	it("compact on a session too small to compact falls back to a fresh session, and says so", async () => {
		let after: Context | undefined;
		h = await startHarness({
			responses: [
				fauxAssistantMessage(
					[
						fauxToolCall(
							"checkpoint",
							{ summary: "Tiny step.", next_task: "The next tiny step.", reset: "compact" },
							{ id: "c1" },
						),
					],
					{ stopReason: "toolUse" },
				),
				(context) => {
					after = context;
					return fauxAssistantMessage("Carrying on.");
				},
			],
		});
		const first = h.session;
		await h.session.prompt("Go.");
		await h.waitFor(() => after !== undefined && h?.session.isIdle === true, "the run after the fallback");
		expect(h.errors).toEqual([]);
		expect(h.session).not.toBe(first);
		expect(
			h.notes.some((n) => n.level === "warning" && /cannot compact this session .*fresh session/.test(n.text)),
		).toBe(true);
		const doc = documentOnDisk(h.cwd);
		const seen = after?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(seen).toContain("Tiny step.");
		expect(seen).not.toContain("Go.");
		// Not "your context was reset" in place, nor "could not be reset": it continued in a new session.
		expect(seen).not.toContain("could not be reset");
		expect(contextTokens(after)).toBeLessThanOrEqual(
			tokens(handoffAsContext(doc, "cut")) + tokens(kickoffText("cut", doc)) + WRAPPING,
		);
	});
});
