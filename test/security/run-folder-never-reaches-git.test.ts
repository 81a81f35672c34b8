/**
 * Attack 5 (issue 21) and issue 20's "a run never reads itself": in a repository whose `.gitignore` does
 * not list `.pi/runs/` (here: no `.gitignore` at all), the reviewer's `diff` read was the run's own
 * journal, snapshot and transcripts, cut before the real change appeared, and `commit` committed them
 * (every tool result, so whatever secret an agent read) onto the run's branch. The run folder now carries
 * its own `.gitignore` (`*`), so git never sees it, wherever it lives.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_GITIGNORE } from "../../src/runs/index.ts";
import { cleanup, cli, git, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

const FLOW = `---
name: fix
description: a coder and a reviewer go round until the reviewer reads the change, then it is committed
input: string
nodes:
  - id: pair
    loop: review.output.done
    max: 2
    do:
      - id: code
        agent: coder
        reads: [input]
      - id: review
        agent: reviewer
        reads: [input, diff]
        output: { done: boolean, saw: string }
  - id: message
    agent: committer
    reads: [input]
  - id: commit
    commit: message
---
## code
Fix the task under \`input\`.

## review
Review the change under \`diff\`.

## message
Write the commit message.
`;

const SCRIPT = `turns:
  code:
    - call: write
      args: { path: src/calc.js, content: "export const add = (a, b) => a + b;\\n" }
    - say: wrote src/calc.js
  review:
    - call: submit
      args: { done: true, saw: looked }
  message:
    - say: "fix add"
`;

describe("a run never reads itself", () => {
	it("the reviewer's diff holds the change and nothing of the run folder; the commit holds no run file", () => {
		const p = repo();
		p.write("README.md", "calc\n");
		git(p, "add", "README.md");
		git(p, "commit", "-qm", "start");
		p.write(".pi/flows/fix.md", FLOW);
		// The script and flow are the person's; they are committed so only the run's own files are new.
		p.write("s.yaml", SCRIPT);
		git(p, "add", ".pi/flows", "s.yaml");
		git(p, "commit", "-qm", "flow");
		expect(existsSync(join(p.cwd, ".gitignore"))).toBe(false);

		const r = cli(p, "run", "fix", "make add work", "--script", "s.yaml", "--project", "--json");
		expect(r.code, r.stderr).toBe(0);
		const [run] = runFolders(p);
		expect(readFileSync(join(p.cwd, ".pi", "runs", run, ".gitignore"), "utf8")).toBe(RUN_GITIGNORE);

		const saw = JSON.parse(readFileSync(join(p.cwd, ".pi", "runs", run, "result.json"), "utf8"));
		expect(saw.ok).toBe(true);
		// What the reviewer read: its turn as the transcript keeps it.
		const transcripts = join(p.cwd, ".pi", "runs", run, "transcripts");
		const reviewer = readdirSync(transcripts).find((f) => f.startsWith("reviewer"));
		const reviewed = readFileSync(join(transcripts, reviewer ?? "missing"), "utf8");
		expect(reviewed).toContain("diff --git a/src/calc.js b/src/calc.js");
		expect(reviewed).not.toContain("diff --git a/.pi/runs");
		expect(reviewed).not.toContain("journal.jsonl");

		const committed = git(p, "show", "--name-only", "--format=", "HEAD");
		expect(committed.split("\n").filter(Boolean)).toEqual(["src/calc.js"]);
		expect(git(p, "status", "--porcelain", "--untracked-files=all")).not.toContain(".pi/runs");
	}, 240_000);
});
