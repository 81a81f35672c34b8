import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sequence } from "./helpers/flows.ts";
import { contentOf, flowResults, type Line, rpc, runFoldersIn, type Sandbox, sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox(["echo", "judge"]);
});
afterEach(() => box.cleanup());

const results = flowResults;
const widgets = (lines: Line[]) => lines.filter((l) => l.type === "extension_ui_request" && l.method === "setWidget");
const runFolders = () => runFoldersIn(box.cwd);

describe("/run in a real pi process", () => {
	it("runs a flow on a provider another extension registered, draws the live view, posts the answer and leaves its run folder", async () => {
		box.write(
			"~agent/flows/hello.md",
			sequence("hello", [{ id: "greet", agent: "echo" }], "model: scripted/scripted\n"),
		);
		const script = box.write("script.yaml", 'turns:\n  "*":\n    - say: "HELLO FROM THE SCRIPTED MODEL"\n');
		const pi = rpc(box, { env: { PI_FLOWS_TEST_SCRIPT: script } });
		try {
			await pi.prompt("/run hello say hello");
			const [result] = results(pi.lines);
			const text = contentOf(result);
			expect(text).toContain("◆ hello");
			expect(text).toContain("HELLO FROM THE SCRIPTED MODEL");
			expect(text).toMatch(/\nok · \.pi\/runs\/\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d-\d{3}-hello · /);
			// The live view was drawn while the run went, with the node's state, and cleared at the end.
			const drawn = widgets(pi.lines).map((w) => (w.widgetLines as string[] | undefined)?.join("\n") ?? "");
			expect(drawn.some((d) => d.includes("● greet · echo"))).toBe(true);
			expect(drawn.some((d) => d.includes("✓ greet · echo"))).toBe(true);
			expect(widgets(pi.lines).at(-1)?.widgetLines).toBeUndefined();
			const [folder] = runFolders();
			const saved = JSON.parse(readFileSync(join(folder, "result.json"), "utf8"));
			expect(saved).toMatchObject({ flow: "hello", ok: true, output: "HELLO FROM THE SCRIPTED MODEL" });
			// The run is journaled like any other: a snapshot, the journal, the usage.
			for (const f of ["snapshot.json", "journal.jsonl", "usage.json"])
				expect(existsSync(join(folder, f)), f).toBe(true);
			expect(
				JSON.parse(readFileSync(join(folder, "usage.json"), "utf8")).visits.map((v: { path: string }) => v.path),
			).toEqual(["greet"]);
		} finally {
			await pi.close();
		}
	});

	it("a dry run (--script) routes each node to its own script entry, flags at either end of the line", async () => {
		box.write(
			"~agent/flows/pair.md",
			sequence("pair", [
				{ id: "draft", agent: "echo" },
				{ id: "review", agent: "judge" },
			]),
		);
		box.write(
			"pair.script.yaml",
			"turns:\n  draft:\n    - say: DRAFT TEXT\n  review:\n    - say: 'REVIEWED: {{section:draft}}'\n",
		);
		const pi = rpc(box);
		try {
			await pi.prompt("/run --script pair.script.yaml pair write a haiku --timeout 30s");
			const text = contentOf(results(pi.lines)[0]);
			expect(text).toContain("Result of the pair flow, asked: write a haiku");
			expect(text).toContain("REVIEWED: DRAFT TEXT");
			expect(text).toMatch(/\nok · \.pi\/runs\//);
		} finally {
			await pi.close();
		}
	});

	it("refuses a flow that does not check with every fault at file:line:col, and nothing runs", async () => {
		box.write(
			"~agent/flows/bad.md",
			sequence("bad", [
				{ id: "one", agent: "nobody" },
				{ id: "two", agent: "echoo" },
			]),
		);
		const pi = rpc(box);
		try {
			await pi.prompt("/run bad some input");
			const note = pi.lines.find((l) => l.method === "notify" && l.notifyType === "error");
			expect(String(note?.message)).toMatch(
				/^\/run bad: refused\n.*bad\.md:7:12: unknown-agent: .*\n.*bad\.md:10:12: unknown-agent: .*`echo`.*\nbad does not check \(2 faults\); nothing was run\.$/,
			);
			expect(results(pi.lines)).toHaveLength(0);
			expect(runFolders()).toHaveLength(0);
		} finally {
			await pi.close();
		}
	});

	it("--budget-tokens stops starting turns once the budget is spent, and says so (the evaluator's budget)", async () => {
		box.write(
			"~agent/flows/pair.md",
			sequence("pair", [
				{ id: "draft", agent: "echo" },
				{ id: "review", agent: "judge" },
			]),
		);
		box.write("pair.script.yaml", "turns:\n  draft:\n    - say: DRAFT TEXT\n  review:\n    - say: NEVER REACHED\n");
		const pi = rpc(box);
		try {
			await pi.prompt("/run pair write it --script pair.script.yaml --budget-tokens 10");
			const text = contentOf(results(pi.lines)[0]);
			expect(text).not.toContain("NEVER REACHED");
			expect(text).toMatch(/\nstopped at review: the token budget is spent \(\d+ of 10\) · \.pi\/runs\//);
			const saved = JSON.parse(readFileSync(join(runFolders()[0], "result.json"), "utf8"));
			expect(saved).toMatchObject({ ok: false, errorKind: "budget", failedAt: "review" });
			expect(JSON.parse(readFileSync(join(runFolders()[0], "snapshot.json"), "utf8")).settings.budget).toMatchObject({
				tokens: 10,
			});
		} finally {
			await pi.close();
		}
	});

	it("posts the answer into the model's context without starting a turn", async () => {
		box.write("~agent/flows/hello.md", sequence("hello", [{ id: "greet", agent: "echo" }]));
		box.write("hello.script.yaml", "turns:\n  greet:\n    - say: HI\n");
		const pi = rpc(box, { args: ["--model", "driver/driver"], env: { PI_FLOWS_TEST_DRIVER: "[]" } });
		const answers = () =>
			pi.lines.filter((l) => l.type === "message_end" && (l.message as { role: string }).role === "assistant");
		try {
			await pi.prompt("/run hello hi --script hello.script.yaml");
			expect(results(pi.lines)).toHaveLength(1);
			expect(answers()).toHaveLength(0);
			await pi.prompt("and now?");
			await pi.waitFor((l) => l.type === "agent_settled", "the model's turn");
			expect(JSON.stringify(answers().at(-1))).toContain("RESULT IN CONTEXT: yes");
		} finally {
			await pi.close();
		}
	});

	it("/run alone lists the flows", async () => {
		const pi = rpc(box);
		try {
			await pi.prompt("/run");
			const note = pi.lines.find((l) => l.method === "notify");
			expect(String(note?.message)).toMatch(/flows[\s\S]*explore\s+shipped[\s\S]*Run one with \/run <flow> <input>\./);
		} finally {
			await pi.close();
		}
	});
});
