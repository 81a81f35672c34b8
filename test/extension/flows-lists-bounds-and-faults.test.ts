import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent, sequence } from "./helpers/flows.ts";
import { type Line, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write("~agent/flows/hello.md", sequence("hello", [{ id: "greet", agent: "echo" }]));
	box.write("~agent/flows/broken.md", sequence("broken", [{ id: "greet", agent: "ecko" }]));
});
afterEach(() => box.cleanup());

const notes = (lines: Line[]) =>
	lines.filter((l) => l.type === "extension_ui_request" && l.method === "notify").map((l) => String(l.message));

describe("/flows in a real pi process", () => {
	it("lists every flow with its source and bound, and a broken one with its faults at file:line:col", async () => {
		const pi = rpc(box);
		try {
			const response = await pi.prompt("/flows");
			expect(response.success).toBe(true);
			const text = notes(pi.lines).join("\n");
			expect(text).toMatch(/^\d+ flows, 1 refused/);
			expect(text).toMatch(/hello\s+user\s+≤ 3 turns · ≤ 1h30m\s+hello, a test flow/);
			expect(text).toMatch(/explore\s+shipped\s+≤ \d+ turns/);
			expect(text).toMatch(/broken\s+user\s+broken/);
			// The fault sits under its flow, at the exact place `ecko` is written (line 7, column 12).
			expect(text).toMatch(/\n {4}.*agent\/flows\/broken\.md:7:12: unknown-agent: .*`ecko`.*echo/);
		} finally {
			await pi.close();
		}
	});

	it("/flows <name> prints the plan and the Mermaid graph; nothing spawns", async () => {
		const pi = rpc(box);
		try {
			await pi.prompt("/flows hello");
			const text = notes(pi.lines).join("\n");
			expect(text).toContain("hello · ");
			expect(text).toMatch(/○ greet · agent echo .*reads input/);
			expect(text).toContain("```mermaid\nflowchart TD");
			expect(pi.lines.some((l) => l.type === "message_start")).toBe(false);
		} finally {
			await pi.close();
		}
	});
});
