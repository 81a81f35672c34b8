/**
 * Issue 33, point 2, in pi: `/run resume --in-doubt rerun` takes the CLI's flag (it used to be read as a run
 * folder) and puts the cut visit's file back before running it again, so its edit lands once. The run in
 * doubt is made by the real `pi-flows run`, SIGKILLed right after its scripted `edit` landed.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killWhen } from "../helpers/kill.ts";
import type { TempProject } from "../helpers/project.ts";
import { contentOf, flowResults, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
});
afterEach(() => box.cleanup());

const FLOW =
	"---\nname: fixit\ndescription: one coder turn\ninput: string\nnodes:\n  - id: fix\n    agent: coder\n---\n\n## fix\n\nAdd the guard.\n";
const SCRIPT =
	'turns:\n  fix:\n    - call: edit\n      args: { path: notes.txt, edits: [{ oldText: "line\\n", newText: "line\\nguard\\n" }] }\n    - delay: 5000\n      say: done\n';

describe("/run resume in a real pi process", () => {
	it("reads --in-doubt rerun as the flag, and the edit is in the file once", async () => {
		box.write("~agent/flows/fixit.md", FLOW);
		box.write("s.yaml", SCRIPT);
		box.write("notes.txt", "line\n");
		const git = (...args: string[]) =>
			execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: box.cwd });
		git("init", "-q");
		git("add", "-A");
		git("commit", "-qm", "start");
		const project = { cwd: box.cwd, env: box.env() } as TempProject;
		const notes = () => readFileSync(join(box.cwd, "notes.txt"), "utf8");
		await killWhen(project, ["fixit", "go", "--script", "s.yaml"], ".pi/runs", () => notes().includes("guard"));
		expect(notes()).toBe("line\nguard\n");
		const pi = rpc(box);
		try {
			await pi.prompt("/run resume --in-doubt rerun --take-lock");
			const said = contentOf(flowResults(pi.lines)[0]);
			expect(said).toContain("(resumed, life 2)");
			expect(said).not.toMatch(/seal|not a run folder/);
			expect(notes()).toBe("line\nguard\n");
		} finally {
			await pi.close();
		}
	}, 120_000);
});
