import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent } from "./helpers/flows.ts";
import { contentOf, flowResults, type Line, print, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

const ASKS = `---
name: asks
description: asks the person three ways, then sums up
input: string
nodes:
  - id: pick
    ask: Which colour?
    options: [red, green, { label: blue, description: the sky }]
    enough: None of these
  - id: sure
    ask: Sure?
    confirm: true
    reads: [pick]
  - id: name
    ask: Your name?
  - id: sum
    agent: echo
    reads: [pick, sure, name]
---

## sum

Sum up the answers under \`pick\`, \`sure\` and \`name\`.
`;

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write("~agent/flows/asks.md", ASKS);
	box.write("asks.script.yaml", 'turns:\n  sum:\n    - say: "{{task}}"\n');
});
afterEach(() => box.cleanup());

describe("a flow's questions", () => {
	it("become pi dialogs, which over RPC are extension_ui_requests answered with extension_ui_response", async () => {
		const asked: Line[] = [];
		const pi = rpc(box, {
			onUi: (request) => {
				if (!["select", "confirm", "input"].includes(String(request.method))) return undefined;
				asked.push(request);
				if (request.method === "select") return { value: "blue — the sky" };
				if (request.method === "confirm") return { confirmed: true };
				return { value: "Ada" };
			},
		});
		try {
			await pi.prompt("/run asks colours --script asks.script.yaml");
			expect(asked.map((r) => r.method)).toEqual(["select", "confirm", "input"]);
			expect(asked[0].title).toMatch(/^pick\n\nWhich colour\?$/);
			expect(asked[0].options).toEqual(["red", "green", "blue — the sky", "None of these"]);
			// The yes/no shows what it reads: the answer to the first question.
			expect(String(asked[1].message)).toMatch(
				/^## pick\n```json\n\{\n {2}"answered": true,\n {2}"answer": "blue"\n\}\n```\n\nSure\?$/,
			);
			const result = flowResults(pi.lines)[0];
			const text = contentOf(result as Line);
			expect(text).toContain('"answer": "blue"');
			expect(text).toContain('"yes": true');
			expect(text).toContain("## name\n\nAda");
			expect(text).toMatch(/\nok · \.pi\/runs\//);
		} finally {
			await pi.close();
		}
	});

	it("with nobody there (pi -p), a question with no default is refused before anything runs", () => {
		const run = print(box, "/run asks colours --script asks.script.yaml");
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(
			/\/run asks: refused\n.*asks\.md:\d+:\d+: unattended-ask: nobody is there to answer `sure`/,
		);
		expect(run.stderr).toContain("asks cannot start here; nothing was run.");
	});
});
