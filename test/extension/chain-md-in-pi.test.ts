// pi-subagents' `.chain.md` files inside pi: listed by `/flows`, run by `/run` and by the `subagent` tool,
// found where flows are found (here the user's flows folder), exactly as a flow file is.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentOf, flowResults, type Line, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

const CHAIN = `---
name: draft-review
description: Draft an answer, then review it
---

## echo
output: draft.md
model: scripted/scripted

Draft an answer to {task}.

## judge
reads: draft.md
model: scripted/scripted

Review the draft: {previous}
`;

let box: Sandbox;
beforeEach(() => {
	box = sandbox(["echo", "judge"]);
	box.write("~agent/flows/draft-review.chain.md", CHAIN);
});
afterEach(() => box.cleanup());

const notes = (lines: Line[]) =>
	lines.filter((l) => l.type === "extension_ui_request" && l.method === "notify").map((l) => String(l.message ?? ""));

describe("a pi-subagents chain file in a real pi process", () => {
	it("is listed by /flows and run by /run, each step on its own agent", async () => {
		const script = box.write(
			"script.yaml",
			'turns:\n  echo:\n    - say: "DRAFT"\n  judge:\n    - say: "REVIEWED: fine"\n',
		);
		const pi = rpc(box, { env: { PI_FLOWS_TEST_SCRIPT: script } });
		try {
			await pi.prompt("/flows");
			expect(notes(pi.lines).join("\n")).toMatch(/draft-review\s+user\s+/);
			await pi.prompt("/run draft-review the question");
			const [result] = flowResults(pi.lines);
			const text = contentOf(result);
			expect(text).toContain("REVIEWED: fine");
			expect(text).toMatch(/\nok · \.pi\/runs\/.*-draft-review · /);
		} finally {
			await pi.close();
		}
	});

	it("is run by the subagent tool, named as a flow", async () => {
		const file = box.write("script.yaml", `turns:\n  "*":\n${'    - say: "ANSWER TO: {{task|lines:1}}"\n'.repeat(8)}`);
		const calls = [{ name: "subagent", args: { flow: "draft-review", input: "the question" } }];
		const pi = rpc(box, {
			args: ["--model", "driver/driver"],
			env: { PI_FLOWS_TEST_SCRIPT: file, PI_FLOWS_TEST_DRIVER: JSON.stringify(calls) },
		});
		try {
			await pi.prompt("Please delegate.");
			await pi.waitFor((l) => l.type === "agent_settled", "the main session to settle", 60_000);
			const end = pi.lines.find((l) => l.type === "tool_execution_end") as
				| (Line & { isError: boolean; result: { content: { text: string }[]; details: { mode: string } } })
				| undefined;
			expect(end?.isError).toBe(false);
			expect(end?.result.details.mode).toBe("flow");
			expect(end?.result.content.map((c) => c.text).join("")).toMatch(/\nok · \.pi\/runs\/.*-draft-review · /);
		} finally {
			await pi.close();
		}
	});
});
