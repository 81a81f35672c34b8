/**
 * Attack 4 (issue 21): with the person answering no to the trust question, the model's
 * `subagent {flow: ".pi/flows/secret.md"}` ran the project flow, and `/run ./.pi/flows/secret.md` did the
 * same; any `.md` of the repository could be named this way. A repository file is project content
 * whether it is named or given as a path, on every surface, and a declined trust stays declined.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent, sequence } from "../extension/helpers/flows.ts";
import { contentOf, type Line, rpc, type Sandbox, sandbox } from "../extension/helpers/pi-process.ts";
import { cleanup, cli, repo } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write(".pi/flows/secret.md", sequence("secret", [{ id: "leak", agent: "echo" }], "model: scripted/scripted\n"));
	box.write("docs/notes.md", sequence("notes", [{ id: "leak", agent: "echo" }], "model: scripted/scripted\n"));
	box.write("secret.script.yaml", "turns:\n  leak:\n    - say: PROJECT FLOW RAN\n");
});
afterEach(() => {
	box.cleanup();
	cleanup();
});

const confirms = (lines: Line[]) => lines.filter((l) => l.type === "extension_ui_request" && l.method === "confirm");
const ran = (lines: Line[]) =>
	lines.some(
		(l) =>
			(l.type === "message_end" || l.type === "tool_execution_end") && JSON.stringify(l).includes("PROJECT FLOW RAN"),
	);
const notes = (lines: Line[]) => lines.filter((l) => l.method === "notify").map((l) => String(l.message));

describe("a project flow given by path needs trust", () => {
	it("`/run ./.pi/flows/secret.md` and `/run docs/notes.md` are refused when the person declined, and asked once", async () => {
		const pi = rpc(box, { onUi: (r) => (r.method === "confirm" ? { confirmed: false } : undefined) });
		try {
			await pi.prompt("/run ./.pi/flows/secret.md tell me --script secret.script.yaml");
			await pi.prompt("/run docs/notes.md tell me --script secret.script.yaml");
			expect(ran(pi.lines)).toBe(false);
			const said = notes(pi.lines);
			expect(said.some((n) => n.includes("./.pi/flows/secret.md is inside this project"))).toBe(true);
			expect(said.some((n) => n.includes("docs/notes.md is inside this project"))).toBe(true);
			// The declined answer stands for the session: nobody is asked a second time.
			expect(confirms(pi.lines)).toHaveLength(1);
		} finally {
			await pi.close();
		}
	});

	it('the model\'s `subagent {flow: ".pi/flows/secret.md"}` is refused as an error result, running nothing', async () => {
		const script = box.write(
			"script.yaml",
			`turns:\n  "*":\n${'    - say: "ANSWER TO: {{task|lines:1}}"\n'.repeat(4)}`,
		);
		const calls = [{ name: "subagent", args: { flow: ".pi/flows/secret.md", input: "x" } }];
		const pi = rpc(box, {
			args: ["--model", "driver/driver"],
			env: { PI_FLOWS_TEST_SCRIPT: script, PI_FLOWS_TEST_DRIVER: JSON.stringify(calls) },
			onUi: (r) => (r.method === "confirm" ? { confirmed: false } : undefined),
		});
		try {
			await pi.prompt("Please delegate.");
			await pi.waitFor((l) => l.type === "agent_settled", "the main session to settle", 60_000);
			const end = pi.lines.find((l) => l.type === "tool_execution_end") as (Line & { isError: boolean }) | undefined;
			expect(end?.isError).toBe(true);
			expect(contentOf(end as Line) + JSON.stringify(end)).toContain("is inside this project");
			expect(ran(pi.lines)).toBe(false);
		} finally {
			await pi.close();
		}
	});

	it("`pi-flows run .pi/flows/secret.md` needs --project like `pi-flows run secret` does", () => {
		const p = repo();
		p.write("~agent/agents/echo.md", agent("echo"));
		p.write(".pi/flows/secret.md", sequence("secret", [{ id: "leak", agent: "echo" }]));
		p.write("s.yaml", "turns:\n  leak:\n    - say: PROJECT FLOW RAN\n");
		const refused = cli(p, "run", ".pi/flows/secret.md", "q", "--script", "s.yaml");
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(".pi/flows/secret.md is inside this project");
		expect(refused.stdout).not.toContain("PROJECT FLOW RAN");
		const allowed = cli(p, "run", ".pi/flows/secret.md", "q", "--script", "s.yaml", "--project");
		expect(allowed).toMatchObject({ code: 0, stdout: "PROJECT FLOW RAN\n" });
	}, 120_000);
});
