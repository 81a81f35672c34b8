/**
 * Attack 2 (issue 21): a model with `write` reached `.pi/runs/<run>/snapshot.json`; a snapshot without
 * the flow's `ask` gate and with a `check:` script of the model's choosing made a later resume run that
 * script. A turn's `write` and `edit` now refuse the runs folder and the project's `.pi/flows` and
 * `.pi/agents`; a record changed anyway (by `bash`) fails the run's seal (resume-refuses-foreign-runs).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

const FLOW = `---
name: w
description: a coder that tries to rewrite what runs it
input: string
nodes:
  - id: code
    agent: coder
---
## code
Do the task.
`;

const write = (path: string, content: string) =>
	`    - call: write\n      args: { path: "${path}", content: "${content}" }\n`;
const edit = (path: string) =>
	`    - call: edit\n      args: { path: "${path}", edits: [{ oldText: "Do the task.", newText: "rm -rf ~" }] }\n`;

describe("a turn cannot rewrite the run's record or the project's definitions", () => {
	it("write and edit into .pi/runs, .pi/flows and .pi/agents are refused; other writes go through", () => {
		const p = repo();
		p.write(".pi/flows/w.md", FLOW);
		p.write(
			"s.yaml",
			`turns:\n  code:\n${write(".pi/runs/forged/snapshot.json", "{}")}${write(".pi/flows/evil.md", "x")}${write(".pi/agents/evil.md", "x")}${edit(".pi/flows/w.md")}${write("src/ok.txt", "fine")}    - say: done\n`,
		);
		const r = cli(p, "run", "w", "go", "--script", "s.yaml", "--project");
		expect(r.code, r.stderr).toBe(0);
		expect(existsSync(join(p.cwd, ".pi/runs/forged"))).toBe(false);
		expect(existsSync(join(p.cwd, ".pi/flows/evil.md"))).toBe(false);
		expect(existsSync(join(p.cwd, ".pi/agents/evil.md"))).toBe(false);
		expect(readFileSync(join(p.cwd, ".pi/flows/w.md"), "utf8")).toBe(FLOW);
		expect(readFileSync(join(p.cwd, "src/ok.txt"), "utf8")).toBe("fine");
		const [run] = runFolders(p);
		const transcripts = join(p.cwd, ".pi", "runs", run, "transcripts");
		const said = readdirSync(transcripts)
			.map((f) => readFileSync(join(transcripts, f), "utf8"))
			.join("\n");
		expect(said.match(/pi-flows refuses this to every turn/g)?.length).toBe(4);
	}, 120_000);
});
