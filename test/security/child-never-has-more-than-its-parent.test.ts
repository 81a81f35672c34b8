/**
 * Hole 4 (issue 28): the `subagent` tool handed out tools the session took away. pi started with
 * `--exclude-tools bash` or `--no-builtin-tools`: the model's own bash was refused, but `subagent {agent:
 * worker}` ran bash through the shipped worker, and a whole flow of workers the same way. A child's tools
 * were never intersected with the session's; now every child gets at most its parent's, and nested flows
 * inherit the cap.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Line, rpc, type Sandbox, sandbox } from "../extension/helpers/pi-process.ts";

let boxes: Sandbox[] = [];
afterEach(() => {
	for (const b of boxes) b.cleanup();
	boxes = [];
});

const FLOW = `---
name: workers
description: one worker turn
input: string
model: scripted/scripted
nodes:
  - id: work
    agent: worker
---
## work
Do it.
`;

/** The session's model delegates twice: one worker, then a flow whose node is a worker. Each tries bash. */
async function delegate(piFlags: string[]): Promise<{ box: Sandbox; ends: Line[]; markers: string[] }> {
	const box = sandbox();
	boxes.push(box);
	box.write("~agent/flows/workers.md", FLOW);
	const marker = (n: number) => join(box.root, `pwned-${n}`);
	const script = box.write(
		"script.yaml",
		`turns:\n  work:\n    - call: bash\n      args: { command: "touch ${marker(2)}" }\n    - say: worked\n  "*":\n    - call: bash\n      args: { command: "touch ${marker(1)}" }\n    - say: worked\n`,
	);
	const calls = [
		{ name: "subagent", args: { agent: "worker", task: "run the tests", model: "scripted/scripted" } },
		{ name: "subagent", args: { flow: "workers", input: "go" } },
	];
	const pi = rpc(box, {
		args: ["--model", "driver/driver", ...piFlags],
		env: { PI_FLOWS_TEST_SCRIPT: script, PI_FLOWS_TEST_DRIVER: JSON.stringify(calls) },
	});
	try {
		await pi.prompt("Please delegate.");
		await pi.waitFor((l) => l.type === "agent_settled", "the main session to settle", 90_000);
		return { box, ends: pi.lines.filter((l) => l.type === "tool_execution_end"), markers: [marker(1), marker(2)] };
	} finally {
		await pi.close();
	}
}

describe("a subagent never has more tools than the session that delegates", () => {
	it.each([[["--exclude-tools", "bash"]], [["--no-builtin-tools"]]])(
		"pi %j: neither `subagent {agent: worker}` nor a flow of workers runs bash",
		async (flags) => {
			const { ends, markers } = await delegate(flags);
			// Both calls were made and answered (the cap is no refusal of the call, only of the tool).
			expect(ends.filter((e) => e.toolName === "subagent")).toHaveLength(2);
			for (const m of markers) expect(existsSync(m), `${m} was touched`).toBe(false);
		},
		120_000,
	);

	it("pi with bash: the same calls do run bash (the test can fail)", async () => {
		const { markers } = await delegate([]);
		for (const m of markers) expect(existsSync(m), `${m} was not touched`).toBe(true);
	}, 120_000);
});
