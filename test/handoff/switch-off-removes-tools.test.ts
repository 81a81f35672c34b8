import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai/providers/faux";
import { afterEach, describe, expect, it } from "vitest";
import { renderHandoff } from "../../src/handoff/index.ts";
import { type Harness, startHarness } from "./helpers.ts";

let h: Harness | undefined;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
});

const doc = renderHandoff({
	status: "partial",
	summary: "Half way.",
	decisions: [],
	artifacts: [],
	next_task: "The other half.",
	writtenAt: "2025-01-01T00:00:00.000Z",
	by: "finish",
});

describe("enable_handoff off", () => {
	it("removes the tools from what the model sees, refuses /next and /cut, and /handoff on brings them back live", async () => {
		let modelSaw = "";
		h = await startHarness({
			responses: [
				(context) => {
					modelSaw = JSON.stringify(context.messages);
					return fauxAssistantMessage("ok");
				},
			],
		});
		writeFileSync(join(h.agentDir, "settings.json"), JSON.stringify({ theme: "dark", enable_handoff: false }));
		writeFileSync(join(h.cwd, "HANDOFF.md"), doc);
		const first = h.session;

		await h.session.prompt("Hello.");
		expect(h.session.getActiveToolNames()).not.toContain("finish");
		expect(h.session.getActiveToolNames()).not.toContain("checkpoint");
		expect(modelSaw).toContain('"name":"read"');
		expect(modelSaw).not.toContain('"name":"finish"');
		expect(modelSaw).not.toContain('"name":"checkpoint"');

		await h.session.prompt("/next");
		await h.session.prompt("/cut");
		expect(h.session).toBe(first);
		expect(h.confirms).toEqual([]);
		expect(h.notes.filter((n) => n.text.includes("switched off"))).toHaveLength(2);

		await h.session.prompt("/handoff status");
		const status = h.notes.at(-1)?.text ?? "";
		expect(status).toMatch(/Handoff protocol: off \(from global\)/);
		expect(status).toMatch(/1\. env HANDOFF_ENABLED: absent/);
		expect(status).toMatch(/3\. global .*settings\.json: set = false {2}<- wins/);

		await h.session.prompt("/handoff on project");
		expect(h.session.getActiveToolNames()).toEqual(expect.arrayContaining(["finish", "checkpoint"]));
		expect(JSON.parse(readFileSync(join(h.cwd, ".pi", "settings.json"), "utf8"))).toEqual({ enable_handoff: true });
		await h.session.prompt("/handoff off");
		expect(JSON.parse(readFileSync(join(h.agentDir, "settings.json"), "utf8"))).toEqual({
			theme: "dark",
			enable_handoff: false,
		});
		// The project layer still says on, so writing off globally does not win; the command says so.
		expect(h.session.getActiveToolNames()).toEqual(expect.arrayContaining(["finish"]));
		expect(h.notes.at(-1)?.text).toContain("project layer wins");
		await h.session.prompt("/handoff off project");
		expect(h.session.getActiveToolNames()).not.toContain("finish");
	});

	it("HANDOFF_ENABLED=false wins over a project that says on", async () => {
		h = await startHarness({ env: { HANDOFF_ENABLED: "false" }, responses: [fauxAssistantMessage("ok")] });
		mkdirSync(join(h.cwd, ".pi"));
		writeFileSync(join(h.cwd, ".pi", "settings.json"), JSON.stringify({ enable_handoff: true }));
		await h.session.prompt("Hello.");
		expect(h.session.getActiveToolNames()).not.toContain("finish");
		await h.session.prompt("/handoff on project");
		expect(h.session.getActiveToolNames()).not.toContain("finish");
		expect(h.notes.at(-1)).toMatchObject({ level: "warning" });
		expect(h.notes.at(-1)?.text).toContain("env layer wins");
	});

	it("is read at session start: the tools are gone before the first prompt", async () => {
		h = await startHarness({ globalSettings: { enable_handoff: "off" }, responses: [] });
		expect(h.session.getActiveToolNames()).toEqual(["read"]);
		expect(h.notes).toEqual([]);
	});

	it("reports a malformed settings file instead of skipping it silently", async () => {
		h = await startHarness({ globalSettings: { enable_handoff: false }, responses: [fauxAssistantMessage("ok")] });
		mkdirSync(join(h.cwd, ".pi"));
		writeFileSync(join(h.cwd, ".pi", "settings.json"), '{ "enable_handoff": true,');
		await h.session.prompt("Hello.");
		expect(h.notes.some((n) => n.level === "warning" && n.text.includes("not valid JSON"))).toBe(true);
		// The broken layer does not count; the global one decides.
		expect(h.session.getActiveToolNames()).not.toContain("finish");
	});
});
