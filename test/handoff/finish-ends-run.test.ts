import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai/providers/faux";
import { afterEach, describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/handoff/index.ts";
import { type Harness, startHarness } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

const finishCall = (id: string, args: Parameters<typeof fauxToolCall>[1]) =>
	fauxAssistantMessage([fauxToolCall("finish", args, { id })], { stopReason: "toolUse" });

describe("finish", () => {
	it("writes HANDOFF.md and ends the run with no further model call", async () => {
		h = await startHarness({
			responses: [
				finishCall("f1", {
					status: "partial",
					summary: "Parser done.",
					artifacts: ["src/p.ts"],
					next_task: "Write the checker.",
				}),
				fauxAssistantMessage("a victory lap that must never be requested"),
			],
		});
		await h.session.prompt("Do the task.");
		expect(h.faux.state.callCount).toBe(1);
		expect(h.faux.getPendingResponseCount()).toBe(1);
		const doc = parseHandoff(readFileSync(join(h.cwd, "HANDOFF.md"), "utf8")).value;
		expect(doc).toMatchObject({
			status: "partial",
			summary: "Parser done.",
			artifacts: ["src/p.ts"],
			next_task: "Write the checker.",
			by: "finish",
		});
		expect(doc?.contextAtWrite).toBeGreaterThan(0);
		expect(h.session.messages.at(-1)?.role).toBe("toolResult");
	});

	it("headless, does not tell the person to run /next, a command print mode does not have", async () => {
		const written: string[] = [];
		const write = process.stderr.write.bind(process.stderr);
		process.stderr.write = ((chunk: string | Uint8Array) => {
			written.push(String(chunk));
			return true;
		}) as typeof process.stderr.write;
		try {
			h = await startHarness({
				mode: "print",
				responses: [finishCall("f1", { status: "partial", summary: "Half.", next_task: "The rest." })],
			});
			await h.session.prompt("Do the task.");
		} finally {
			process.stderr.write = write;
		}
		const note = written.join("");
		expect(note).toContain("Handoff written (partial).");
		expect(note).not.toContain("Run /next");
		expect(note).toContain("pi-flows drive");
	});

	it("refuses to run beside another tool call, because the run would not stop", async () => {
		h = await startHarness({
			responses: [
				fauxAssistantMessage(
					[
						fauxText("reading and finishing at once"),
						fauxToolCall("read", { path: "nothing.txt" }, { id: "r1" }),
						fauxToolCall("finish", { status: "done", summary: "x" }, { id: "f1" }),
					],
					{ stopReason: "toolUse" },
				),
				finishCall("f2", { status: "done", summary: "Done, alone this time." }),
				fauxAssistantMessage("never requested"),
			],
		});
		await h.session.prompt("Do the task.");
		const results = h.session.messages.filter((m) => m.role === "toolResult");
		const first = results.find((m) => m.role === "toolResult" && m.toolCallId === "f1");
		expect(first && first.role === "toolResult" && first.isError).toBe(true);
		expect(h.faux.state.callCount).toBe(2);
		expect(h.faux.getPendingResponseCount()).toBe(1);
		expect(parseHandoff(readFileSync(join(h.cwd, "HANDOFF.md"), "utf8")).value?.summary).toBe("Done, alone this time.");
	});

	it("keeps the document it replaces under .pi/handoffs", async () => {
		h = await startHarness({
			responses: [finishCall("f1", { status: "done", summary: "first" })],
		});
		await h.session.prompt("One.");
		h.faux.setResponses([finishCall("f2", { status: "done", summary: "second" })]);
		await h.session.prompt("Two.");
		const kept = readdirSync(join(h.cwd, ".pi", "handoffs"));
		expect(kept).toHaveLength(1);
		expect(kept[0]).toMatch(/-done\.md$/);
		expect(parseHandoff(readFileSync(join(h.cwd, ".pi", "handoffs", kept[0]), "utf8")).value?.summary).toBe("first");
	});
});
