/**
 * Attack 6 (issue 21): a parallel block with copies, two branches writing the same file: the refused
 * branch's work was deleted (`worktree remove --force`, `branch -D`), contrary to docs/copies.md. Work
 * that did not land now stays on its copy's branch, and the run's result says which branch.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, git, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

const FLOW = `---
name: both
description: two branches write the same file at once
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
Write your version.

## b
Write your version.
`;

const SCRIPT = `turns:
  a:
    - call: write
      args: { path: same.txt, content: "left version" }
    - say: wrote left
  b:
    - call: write
      args: { path: same.txt, content: "right version" }
    - say: wrote right
`;

describe("work in a copy that did not land is kept", () => {
	it("the refused branch's work is on its branch, and result.json names it", () => {
		const p = repo();
		p.write("README.md", "readme\n");
		p.write(".pi/flows/both.md", FLOW);
		p.write("s.yaml", SCRIPT);
		git(p, "add", ".");
		git(p, "commit", "-qm", "initial");
		const r = cli(p, "run", "both", "go", "--script", "s.yaml", "--project", "--json");
		expect(r.code, r.stderr).toBe(0);
		expect(readFileSync(join(p.cwd, "same.txt"), "utf8")).toBe("left version");
		const kept = git(p, "branch", "--list", "pi-flows-copy/*", "--format=%(refname:short)").trim();
		expect(kept).toMatch(/^pi-flows-copy\/pair-right-[0-9a-f]{6}$/);
		expect(git(p, "show", `${kept}:same.txt`)).toBe("right version");
		const [run] = runFolders(p);
		const result = readFileSync(join(p.cwd, ".pi", "runs", run, "result.json"), "utf8");
		expect(result).toContain(`"kept": "${kept}"`);
	}, 120_000);
});
