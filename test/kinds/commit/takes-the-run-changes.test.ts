/**
 * Issue 33, point 5: `commit` commits what the run changed, never the author's work in progress. Through
 * the real `pi-flows run`: the author's flow, agent and script are untracked and one tracked file is
 * modified before the run; the run's turn writes a new file and edits the modified one too. The commit
 * holds the new file only, the modified file stays modified and is named in `left_out`, and the author's
 * untracked files stay untracked.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliChild, type Exited } from "../../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";

const FLOW = `---
name: shipit
description: a coder turn, a message, a commit
input: string
nodes:
  - id: fix
    agent: fixer
  - id: message
    agent: fixer
  - id: commit
    commit: message
---

## fix

Do it.

## message

Write the commit message.
`;

const SCRIPT = `turns:
  fix:
    - calls:
        - { name: write, args: { path: added.txt, content: "from the run\\n" } }
        - { name: edit, args: { path: wip.txt, edits: [{ oldText: "mine", newText: "mine, and the run's" }] } }
    - say: done
  message:
    - say: Add added.txt
`;

let project: TempProject;
let ran: Exited;
const git = (...args: string[]) =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project.cwd, encoding: "utf8" });

beforeAll(async () => {
	project = tempProject();
	project.write("tracked.txt", "tracked\n");
	project.write("wip.txt", "committed\n");
	git("init", "-q");
	git("add", "-A");
	git("commit", "-qm", "start");
	// The author's work in progress: an edit not committed, and the flow, agent and script never added.
	project.write("wip.txt", "committed\nmine\n");
	project.write(".pi/flows/shipit.md", FLOW);
	project.write(".pi/agents/fixer.md", agentFile("fixer", "read, write, edit"));
	project.write("s.yaml", SCRIPT);
	ran = await cliChild(project, ["run", "shipit", "go", "--script", "s.yaml", "--project", "--json"]);
}, 60_000);
afterAll(() => project.cleanup());

describe("a run's commit", () => {
	it("holds the paths the run changed and none that were dirty before it began", () => {
		expect(ran.status, ran.stderr).toBe(0);
		const output = (JSON.parse(ran.stdout) as { output: unknown }).output;
		expect(output).toMatchObject({ committed: true, branch: "pi-flows/go", left_out: ["wip.txt"] });
		expect(git("show", "--name-only", "--format=", "HEAD").trim().split("\n")).toEqual(["added.txt"]);
		expect(git("show", "HEAD:added.txt")).toBe("from the run\n");
	});

	it("leaves the author's untracked files untracked and their edit uncommitted, and the index in step", () => {
		const status = git("status", "--porcelain", "--untracked-files=all").trimEnd().split("\n").sort();
		expect(status).toEqual([" M wip.txt", "?? .pi/agents/fixer.md", "?? .pi/flows/shipit.md", "?? s.yaml"]);
		expect(git("show", "HEAD:wip.txt")).toBe("committed\n");
	});
});
