import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import { fauxAssistantMessage } from "@earendil-works/pi-ai/providers/faux";
import { afterEach, describe, expect, it } from "vitest";
import { HANDOFF_TYPES } from "../../src/extension/handoff/index.ts";
import { type HandoffDocument, renderHandoff } from "../../src/handoff/index.ts";
import { type Harness, startHarness, textOf } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

const base: HandoffDocument = {
	status: "partial",
	summary: "The lexer is done and tested.",
	decisions: ["Hand-written lexer: the grammar is tiny"],
	artifacts: ["src/lexer.ts"],
	next_task: "Write the parser on top of src/lexer.ts.",
	writtenAt: "2025-01-01T00:00:00.000Z",
	by: "finish",
};

async function withDocument(doc: HandoffDocument | undefined, confirm = true) {
	const seen: { context?: Context } = {};
	h = await startHarness({
		confirm,
		responses: [
			(context) => {
				seen.context = context;
				return fauxAssistantMessage("Starting on it.");
			},
		],
	});
	if (doc) writeFileSync(join(h.cwd, "HANDOFF.md"), renderHandoff(doc));
	return { harness: h, seen };
}

describe("/next", () => {
	it("asks, then starts a fresh session that records its parent and is seeded with the document", async () => {
		const { harness, seen } = await withDocument(base);
		const first = harness.session;
		const parent = first.sessionFile;
		await harness.session.prompt("/next");
		await harness.waitFor(() => seen.context !== undefined && harness.session.isIdle, "the fresh session's first turn");

		expect(harness.errors).toEqual([]);
		expect(harness.confirms).toHaveLength(1);
		expect(harness.session).not.toBe(first);
		expect(harness.session.sessionManager.getHeader()?.parentSession).toBe(parent);
		const seed = harness.session.sessionManager.getBranch().find((e) => e.type === "custom_message");
		expect(seed?.type === "custom_message" && seed.customType).toBe(HANDOFF_TYPES.seed);
		const texts = seen.context?.messages.map((m) => textOf(m.content)) ?? [];
		expect(texts.join("\n")).toContain("Write the parser on top of src/lexer.ts.");
		expect(texts.join("\n")).toContain("no memory of earlier ones");
		expect(texts.at(-1)).toContain('"Next task"');
		// Nothing of the first session's conversation came along.
		expect(harness.session.messages.some((m) => m.role === "user" && textOf(m.content) === "/next")).toBe(false);
	});

	it("uses the text after /next as the kickoff", async () => {
		const { harness, seen } = await withDocument(base);
		await harness.session.prompt("/next focus on the failing tests first");
		await harness.waitFor(() => seen.context !== undefined && harness.session.isIdle, "the fresh session's first turn");
		expect(textOf(seen.context?.messages.at(-1)?.content)).toBe("focus on the failing tests first");
	});

	it("says so at the end of the chain and starts nothing", async () => {
		const { harness } = await withDocument({ ...base, status: "done", next_task: undefined });
		const first = harness.session;
		await harness.session.prompt("/next");
		expect(harness.session).toBe(first);
		expect(harness.confirms).toEqual([]);
		expect(harness.notes.at(-1)?.text).toContain("has no next task");
	});

	it("stops at a blocked document and says why", async () => {
		const { harness } = await withDocument({ ...base, status: "blocked", blocked: "Needs the API key from Ana." });
		await harness.session.prompt("/next");
		expect(harness.notes.at(-1)?.text).toContain("needs a person: Needs the API key from Ana. Give /next");
		expect(harness.notes.at(-1)?.text).not.toContain("..");
		expect(harness.faux.state.callCount).toBe(0);
	});

	it("does nothing when the human says no, or when there is no HANDOFF.md", async () => {
		const { harness } = await withDocument(base, false);
		const first = harness.session;
		await harness.session.prompt("/next");
		expect(harness.session).toBe(first);
		expect(harness.notes.at(-1)?.text).toContain("cancelled");
		await h?.dispose();
		const again = await withDocument(undefined);
		await again.harness.session.prompt("/next");
		expect(again.harness.notes.at(-1)).toMatchObject({ level: "error" });
		expect(again.harness.notes.at(-1)?.text).toContain("There is no");
	});
});

describe("/cut typed by a human", () => {
	it("asks, then continues the same task in a fresh session", async () => {
		const { harness, seen } = await withDocument({ ...base, status: "in-progress", by: "checkpoint" });
		await harness.session.prompt("/cut");
		await harness.waitFor(() => seen.context !== undefined && harness.session.isIdle, "the fresh session's first turn");
		expect(harness.confirms).toEqual(["Continue this task in a fresh session?"]);
		const texts = seen.context?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(texts).toContain("new session for the same task");
		expect(textOf(seen.context?.messages.at(-1)?.content)).toContain("Continue the task from the checkpoint");
	});
});

describe("/handoff", () => {
	it("shows the whole document, not its first lines", async () => {
		const long = { ...base, summary: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the summary.`).join("\n") };
		const { harness } = await withDocument(long);
		await harness.session.prompt("/handoff");
		expect(harness.notes.at(-1)?.text).toBe(renderHandoff(long));
		expect(harness.faux.state.callCount).toBe(0);
	});
});
