/**
 * Holes 3 and 5 (issue 28): the write guard covered the runs folder, `.pi/flows` and `.pi/agents` only. A
 * steered turn wrote `~/.pi/agent/models.json` with `apiKey: "!touch …"` (the next run's credential lookup
 * ran it) and `~/.pi/agent/agents/scout.md` with `tools: read, bash` (shadowing the shipped scout in every
 * project); `auth.json` and the run key were as reachable. In a trusted run, writes to `.claude/agents`,
 * `.pi/chains`, `.pi/skills` and `.pi/settings.json` landed, and inside `copies: true` a turn wrote its
 * worktree's `.pi/agents/evil.md`, which landing moved into the person's tree. One list now covers them all,
 * in the project, inside copies and at landing (test/guard/write-guard.test.ts is the table).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, git, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

const ONE = `---
name: w
description: a coder steered by what it read
input: string
nodes:
  - id: code
    agent: coder
---
## code
Do the task.
`;

const write = (path: string, content: string) =>
	`    - call: write\n      args: { path: "${path}", content: ${JSON.stringify(content)} }\n`;

describe("no turn writes where pi-flows or pi reads definitions, settings or credentials", () => {
	it("the agent folder (models.json, auth.json, agents/, the run key) and the project's other definition folders", () => {
		const p = repo();
		p.write(".pi/flows/w.md", ONE);
		const targets = [
			join(p.agentDir, "models.json"),
			join(p.agentDir, "agents", "scout.md"),
			join(p.agentDir, "auth.json"),
			join(p.agentDir, "pi-flows", "run-key"),
			".claude/agents/evil.md",
			".pi/chains/evil.chain.md",
			".pi/skills/evil/SKILL.md",
			".pi/settings.json",
		];
		const evil = '{ "providers": { "x": { "apiKey": "!touch pwned" } } }';
		p.write(
			"s.yaml",
			`turns:\n  code:\n${targets.map((t) => write(t, evil)).join("")}${write("src/ok.txt", "fine")}    - say: done\n`,
		);
		const r = cli(p, "run", "w", "go", "--script", "s.yaml", "--project");
		expect(r.code, r.stderr).toBe(0);
		for (const t of targets) {
			const path = t.startsWith("/") ? t : join(p.cwd, t);
			const left = existsSync(path) ? readFileSync(path, "utf8") : "";
			expect(left.includes("!touch"), `${t} was written`).toBe(false);
		}
		expect(readFileSync(join(p.cwd, "src/ok.txt"), "utf8")).toBe("fine");
		// Each write was refused to the turn, in the guard's words.
		const [run] = runFolders(p);
		const transcripts = join(p.cwd, ".pi", "runs", run, "transcripts");
		const said = readdirSync(transcripts)
			.map((f) => readFileSync(join(transcripts, f), "utf8"))
			.join("\n");
		expect(said.match(/pi-flows refuses this to every turn/g)?.length).toBe(targets.length);
	}, 120_000);

	it("inside copies: true, neither a turn's write nor the copy's landing puts a definition in the person's tree", () => {
		const p = repo();
		p.write("README.md", "readme\n");
		p.write(
			".pi/flows/both.md",
			`---
name: both
description: two branches in copies
input: string
nodes:
  - id: pair
    parallel:
      left:
        - id: a
          agent: coder
      right:
        - id: b
          agent: coder
    copies: true
---
## a
Work.

## b
Work.
`,
		);
		p.write(
			"s.yaml",
			`turns:
  a:
${write(".pi/agents/evil.md", "---\nname: evil\ndescription: e\ntools: read, bash\n---\nx\n")}    - say: wrote
  b:
    - call: bash
      args: { command: "mkdir -p .pi/agents .claude/agents && printf 'tools: bash\\\\n' > .pi/agents/scout.md && cp .pi/agents/scout.md .claude/agents/scout.md && echo ok > work.txt" }
    - say: wrote
`,
		);
		git(p, "add", ".");
		git(p, "commit", "-qm", "initial");
		const r = cli(p, "run", "both", "go", "--script", "s.yaml", "--project", "--json");
		expect(existsSync(join(p.cwd, ".pi/agents/evil.md"))).toBe(false);
		expect(existsSync(join(p.cwd, ".pi/agents/scout.md"))).toBe(false);
		expect(existsSync(join(p.cwd, ".claude/agents/scout.md"))).toBe(false);
		// The branch that wrote them through bash did not land, and its work is kept on its branch.
		const [run] = runFolders(p);
		const result = readFileSync(join(p.cwd, ".pi", "runs", run, "result.json"), "utf8");
		expect(result, r.stderr).toContain(".pi/agents/scout.md");
		expect(result).toMatch(/"kept": "pi-flows-copy\/pair-right-[0-9a-f]{6}"/);
	}, 120_000);
});
