import { fauxAssistantMessage } from "@earendil-works/pi-ai/providers/faux";
import type { Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { HANDOFF_TYPES } from "../../../src/extension/handoff/index.ts";
import { type Harness, padThenCheckpoint, startHarness, textOf } from "../../handoff/helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

describe("checkpoint with reset session", () => {
	it("continues the task in a new session seeded with the document, without asking", async () => {
		let freshContext: Context | undefined;
		h = await startHarness(
			padThenCheckpoint(
				2000,
				{ summary: "Schema drafted.", next_task: "Implement the loader.", reset: "session" },
				(context) => {
					freshContext = context;
					return fauxAssistantMessage("Picking up in the fresh session.");
				},
			),
		);
		const first = h.session;
		const firstFile = first.sessionFile;
		await h.session.prompt("Start the task.");
		await h.waitFor(() => freshContext !== undefined && h?.session.isIdle === true, "the run in the new session");

		expect(h.errors).toEqual([]);
		expect(h.session).not.toBe(first);
		expect(h.confirms).toEqual([]);
		expect(h.session.sessionManager.getHeader()?.parentSession).toBe(firstFile);
		const seen = freshContext?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(seen).toContain("Schema drafted.");
		expect(seen).not.toContain("x".repeat(100));
		const seed = h.session.sessionManager.getBranch().find((e) => e.type === "custom_message");
		expect(seed?.type === "custom_message" && seed.customType).toBe(HANDOFF_TYPES.seed);
		// The reset count rides along, so the breaker holds across sessions.
		const state = h.session.sessionManager
			.getBranch()
			.find((e) => e.type === "custom" && e.customType === HANDOFF_TYPES.state);
		expect(state?.type === "custom" && state.data).toMatchObject({ resets: 1, purpose: "cut" });
		expect(h.faux.state.callCount).toBe(3);
	});
});
