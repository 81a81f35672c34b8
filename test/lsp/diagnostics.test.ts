/**
 * Diagnostics as you type: the checker's faults, one diagnostic each, with 0-based UTF-16 ranges, the fault
 * code, our source and related places; fixing the text clears them.
 */
import { describe, expect, it } from "vitest";
import { find, positionAt } from "./client.ts";
import { agentFile } from "../helpers/project.ts";
import { FLOW, serverPerFile } from "./fixture.ts";

const lsp = serverPerFile();

describe("diagnostics", () => {
	it("reports a fault at its exact range with its code on open, and clears it when the text is fixed", async () => {
		const broken = FLOW.replace("agent: helper\n    reads: [input, plan", "agent: helpr\n    reads: [input, plan");
		const uri = lsp.client.open(lsp.project.file, broken);
		const at = find(broken, "helpr");
		const opened = await lsp.client.diagnostics(uri, 1);
		expect(opened.diagnostics).toEqual([
			{
				range: { start: at, end: { line: at.line, character: at.character + 5 } },
				severity: 1,
				code: "unknown-agent",
				source: "pi-flows",
				message: expect.stringContaining("`helpr`"),
			},
		]);
		lsp.client.change(uri, 2, FLOW);
		expect((await lsp.client.diagnostics(uri, 2)).diagnostics).toEqual([]);
	});

	it("counts columns in UTF-16 code units, as LSP does, after characters outside the BMP", async () => {
		const text = FLOW.replace('when: plan.output.status == "ready"', 'when: size("🙂🙂") == 2 && plnn.ok');
		const uri = lsp.client.open(lsp.project.file, text);
		const at = find(text, "plnn");
		expect(at.character).toBe(find(text, "when:").character + 'when: size("🙂🙂") == 2 && '.length);
		const { diagnostics } = await lsp.client.diagnostics(uri, 1);
		expect(diagnostics.map((d) => [d.code, d.range])).toEqual([
			["condition-unknown-address", { start: at, end: { line: at.line, character: at.character + 4 } }],
		]);
	});

	it("points at the first definition of a duplicate id as related information", async () => {
		const text = FLOW.replace("id: finish", "id: work").replace("## finish\nFinish.\n", "");
		const uri = lsp.client.open(lsp.project.file, text);
		const { diagnostics } = await lsp.client.diagnostics(uri, 1);
		const first = find(text, "id: work", 4);
		const second = positionAt(text, text.indexOf("id: work", text.indexOf("id: work") + 1) + 4);
		expect(diagnostics.filter((d) => d.code === "duplicate-id")).toEqual([
			{
				range: { start: second, end: { line: second.line, character: second.character + 4 } },
				severity: 1,
				code: "duplicate-id",
				source: "pi-flows",
				message: expect.any(String),
				relatedInformation: [{ location: { uri, range: { start: first, end: first } }, message: "first defined here" }],
			},
		]);
	});

	it("shows an agent's kept peer keys as information, never as an error (issue 17)", async () => {
		lsp.project.write(
			".pi/agents/helper.md",
			agentFile("helper", "read, grep", "lifetime: workflow\nconcurrency: 3\n"),
		);
		const uri = lsp.client.open(lsp.project.file, FLOW);
		const { diagnostics } = await lsp.client.diagnostics(uri, 1);
		const at = find(FLOW, "helper");
		expect(diagnostics.map((d) => [d.code, d.severity, d.range.start])).toEqual([["agent-keys", 3, at]]);
		expect(diagnostics[0].message).toContain("`concurrency`");
		// The server is shared by this file's tests: put the fixture's agent back.
		lsp.project.write(
			".pi/agents/helper.md",
			agentFile("helper", "read, grep").replace("helper for tests", "Helps with small tasks."),
		);
	});

	it("debounces a burst of changes and judges the last one", async () => {
		const uri = lsp.client.open(lsp.project.file, FLOW);
		expect((await lsp.client.diagnostics(uri, 1)).diagnostics).toEqual([]);
		lsp.client.change(uri, 2, FLOW.replace("agent: planner", "agent: plannr"));
		lsp.client.change(uri, 3, FLOW.replace("agent: planner", "agent: planer"));
		const { diagnostics } = await lsp.client.diagnostics(uri, 3);
		expect(diagnostics.map((d) => [d.code, d.range.start])).toEqual([["unknown-agent", find(FLOW, "planner")]]);
	});

	it("judges open flows again when an agent file appears on disk", async () => {
		const text = FLOW.replace("agent: planner", "agent: drafter");
		const uri = lsp.client.open(lsp.project.file, text);
		expect((await lsp.client.diagnostics(uri, 1)).diagnostics.map((d) => d.code)).toEqual(["unknown-agent"]);
		const next = lsp.client.nextDiagnostics(uri);
		lsp.client.filesChanged([lsp.project.write(".pi/agents/drafter.md", agentFile("drafter"))]);
		expect((await next).diagnostics).toEqual([]);
	});
});
