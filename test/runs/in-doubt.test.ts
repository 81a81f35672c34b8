/**
 * Issue 33, point 2: in doubt, the tree is put back. A real `pi-flows run` is SIGKILLed right after its
 * scripted turn's `edit` landed; a resume refuses and names the file the cut visit changed; `resume
 * --in-doubt rerun` puts the file back to the tree the visit started from (keeping what it replaced under
 * a ref) and runs the visit again, so the edit is in the file once. Issue 33, point 4: the report of the
 * cut run shows the visit in doubt, the refused call and the failed tool with their words, and what a
 * resume would truly do.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliChild, killWhen } from "../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";

const FLOW = `---
name: fixit
description: one coder turn that edits a file
input: string
nodes:
  - id: look
    agent: fixer
  - id: fix
    agent: fixer
---

## look

Look first.

## fix

Add the guard.
`;

// \`look\`: a read that fails and an edit pi refuses (no \`edits\`); \`fix\`: the edit that lands, then a
// request that waits long enough for the kill to come first.
const SCRIPT = `turns:
  look:
    - call: read
      args: { path: missing.txt }
    - call: edit
      args: { path: notes.txt }
    - say: looked
  fix:
    - call: edit
      args: { path: notes.txt, edits: [{ oldText: "line\\n", newText: "line\\nguard\\n" }] }
    - delay: 5000
      say: done
`;

let project: TempProject;
let runDir: string;
const notes = () => readFileSync(join(project.cwd, "notes.txt"), "utf8");
const git = (...args: string[]) =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project.cwd, encoding: "utf8" });

beforeAll(async () => {
	project = tempProject();
	project.write(".pi/flows/fixit.md", FLOW);
	project.write(".pi/agents/fixer.md", agentFile("fixer", "read, edit"));
	project.write("s.yaml", SCRIPT);
	project.write("notes.txt", "line\n");
	git("init", "-q");
	git("add", "-A");
	git("commit", "-qm", "start");
	runDir = await killWhen(project, ["fixit", "go", "--script", "s.yaml", "--project"], ".pi/runs", () =>
		notes().includes("guard"),
	);
}, 60_000);
afterAll(() => project.cleanup());

describe("a visit cut in doubt", () => {
	it("is refused by a plain resume, which names the file it changed", async () => {
		expect(notes()).toBe("line\nguard\n");
		const out = await cliChild(project, ["resume", runDir, "--take-lock"]);
		expect(out.status, out.stderr).toBe(2);
		expect(out.stderr).toMatch(/in doubt: fix \(changed notes\.txt\)/);
		expect(notes()).toBe("line\nguard\n");
	}, 60_000);

	it("has a report that shows the turn in doubt, the refused call, the failed tool and what a resume would do", async () => {
		const out = await cliChild(project, ["report", runDir]);
		expect(out.status, out.stderr).toBe(0);
		const html = readFileSync(join(runDir, "report.html"), "utf8");
		expect(html).toMatch(/In doubt \(life 1\): fix was cut after calling a tool that writes/);
		expect(html).toMatch(/class="tool-refused"[\s\S]*<td>edit<\/td><td>Validation failed for tool/);
		expect(html).toMatch(/class="tool-failed"[\s\S]*<td>read<\/td><td>[^<]*missing\.txt/);
		expect(html).toMatch(
			/A resume stops at the visit in doubt \(fix\) unless told: <code>--in-doubt rerun<\/code>|A resume stops at the visit in doubt \(fix\) unless told: `--in-doubt rerun`/,
		);
		expect(html).not.toContain("picks it up where it stopped");
	}, 60_000);

	it("runs again from the tree it started from with --in-doubt rerun: the edit is in the file once", async () => {
		const out = await cliChild(project, ["resume", runDir, "--take-lock", "--in-doubt", "rerun"]);
		expect(out.status, out.stderr).toBe(0);
		expect(out.stderr).toMatch(/put back notes\.txt as fix found them \(the tree it replaced: refs\/pi-flows\/kept\//);
		expect(notes()).toBe("line\nguard\n");
		// What the put-back replaced is kept: the cut visit's edit, under the ref the note names.
		const [ref] = git("for-each-ref", "--format=%(refname)", "refs/pi-flows/kept/").trim().split("\n");
		expect(git("show", `${ref}:notes.txt`)).toBe("line\nguard\n");
	}, 60_000);
});
