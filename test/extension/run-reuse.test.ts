/**
 * `/run … --reuse` in a real pi process: a question asked once is not asked again when it is the same
 * question, the live view says its answer was reused, and the posted answer says what the run saved.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent } from "./helpers/flows.ts";
import { contentOf, flowResults, type Line, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

const FLOW = `---
name: pick
description: asks, then sums up
input: string
nodes:
  - id: colour
    ask: Which colour?
    options: [red, green, blue]
  - id: sum
    agent: echo
    reads: [colour]
---

## sum

Say the colour.
`;

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write("~agent/flows/pick.md", FLOW);
	box.write("pick.script.yaml", 'turns:\n  sum:\n    - say: "colour: {{section:colour}}"\n');
	box.write("empty.script.yaml", "turns: {}\n");
});
afterEach(() => box.cleanup());

const widgets = (lines: Line[]) =>
	lines
		.filter((l) => l.type === "extension_ui_request" && l.method === "setWidget")
		.map((w) => (w.widgetLines as string[] | undefined)?.join("\n") ?? "");

describe("/run --reuse", () => {
	it("asks an identical question once, says its answer was reused, and plays nothing that did not change", async () => {
		const asked: Line[] = [];
		const pi = rpc(box, {
			onUi: (request) => {
				if (request.method !== "select") return undefined;
				asked.push(request);
				return { value: "green" };
			},
		});
		try {
			await pi.prompt("/run pick colours --script pick.script.yaml");
			expect(asked).toHaveLength(1);
			await pi.prompt("/run pick colours --script empty.script.yaml --reuse");
			expect(asked).toHaveLength(1);
			const [first, second] = flowResults(pi.lines).map((r) => contentOf(r as Line));
			expect(first).toContain('"answer": "green"');
			expect(second).toContain('"answer": "green"');
			expect(second).toMatch(/\nok · \.pi\/runs\/\S+ · .* · reused 2 of 2 visits \(saved \d+ tokens\)/);
			expect(
				widgets(pi.lines).some(
					(w) => w.includes("✓ colour · ask · ") && w.includes("answer reused (the same question)"),
				),
			).toBe(true);
			expect(widgets(pi.lines).some((w) => /✓ sum · echo · .*reused \(saved \d+ tokens\)/.test(w))).toBe(true);
		} finally {
			await pi.close();
		}
	}, 120_000);
});
