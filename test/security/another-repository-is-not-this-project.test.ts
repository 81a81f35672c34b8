/**
 * Hole 9 (issue 28): a flow of another repository counted as the person's. Trust knew only the current
 * project's root, so `subagent {flow: "../other/.pi/flows/x.md"}` (or `pi-flows run ../other/...`) ran a
 * sibling clone's flow, bash included, as if the person had written it; the same for a path into a git
 * worktree or one of pi-flows' own copy worktrees. Trust now knows which repository a path belongs to: this
 * one's worktrees are this project (trusted with it), another repository is never this project's to trust.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type Line, rpc, type Sandbox, sandbox } from "../extension/helpers/pi-process.ts";
import { cleanup, cli, git, repo } from "./helpers.ts";

afterAll(cleanup);

/** Another repository: a folder of its own with `git init` in it. */
function gitInit(dir: string): void {
	mkdirSync(dir, { recursive: true });
	expect(spawnSync("git", ["init", "-q"], { cwd: dir }).status).toBe(0);
}

/** A flow whose one turn runs bash through the shipped worker: the script says what it touches. */
const FLOW = `---
name: x
description: runs bash
input: string
model: scripted/scripted
nodes:
  - id: work
    agent: worker
---
## work
Do it.
`;
const script = (marker: string) =>
	`turns:\n  work:\n    - call: bash\n      args: { command: "touch ${marker}" }\n    - say: OTHER FLOW RAN\n`;

describe("a path into another repository or worktree is judged by the repository it belongs to", () => {
	it("`pi-flows run ../other/.pi/flows/x.md` is refused, with --project too", () => {
		const p = repo();
		const other = join(dirname(p.cwd), "other");
		mkdirSync(join(other, ".pi", "flows"), { recursive: true });
		gitInit(other);
		writeFileSync(join(other, ".pi", "flows", "x.md"), FLOW);
		const marker = join(dirname(p.cwd), "pwned-other");
		p.write("s.yaml", script(marker));
		for (const trust of [[], ["--project"]]) {
			const r = cli(p, "run", "../other/.pi/flows/x.md", "go", "--script", "s.yaml", ...trust);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			expect(r.stderr).toContain(`../other/.pi/flows/x.md belongs to another repository (${other})`);
			expect(existsSync(marker)).toBe(false);
		}
	}, 120_000);

	it("a git worktree and a pi-flows copy worktree of this repository are this project: trusted with it only", () => {
		const p = repo();
		p.write("README.md", "r\n");
		git(p, "add", ".");
		git(p, "commit", "-qm", "init");
		const wt = join(dirname(p.cwd), "wt2");
		const copy = join(tmpdir(), `pi-flows-copy-${process.pid}-test`);
		git(p, "worktree", "add", "-q", "-b", "side", wt);
		git(p, "worktree", "add", "-q", "-b", "pi-flows-copy/x-000000", copy);
		const marker = join(dirname(p.cwd), "pwned-wt");
		p.write("s.yaml", script(marker));
		try {
			for (const dir of [wt, copy]) {
				mkdirSync(join(dir, ".pi", "flows"), { recursive: true });
				writeFileSync(join(dir, ".pi", "flows", "x.md"), FLOW);
			}
			const link = join(p.cwd, "copy-link");
			symlinkSync(copy, link);
			for (const path of ["../wt2/.pi/flows/x.md", "copy-link/.pi/flows/x.md"]) {
				const refused = cli(p, "run", path, "go", "--script", "s.yaml");
				expect(refused.code, refused.stderr).toBe(2);
				expect(refused.stderr).toContain(`${path} is inside this project, so it is repository content`);
				expect(existsSync(marker)).toBe(false);
			}
			const trusted = cli(p, "run", "../wt2/.pi/flows/x.md", "go", "--script", "s.yaml", "--project");
			expect(trusted.code, trusted.stderr).toBe(0);
			expect(existsSync(marker)).toBe(true);
		} finally {
			git(p, "worktree", "remove", "--force", copy);
		}
	}, 180_000);
});

describe('the model\'s `subagent {flow: "../other/..."}` in pi', () => {
	let box: Sandbox;
	afterEach(() => box?.cleanup());

	it("is refused as an error result even in a project the person trusted, running nothing", async () => {
		box = sandbox();
		const other = join(box.root, "other");
		mkdirSync(join(other, ".pi", "flows"), { recursive: true });
		gitInit(other);
		writeFileSync(join(other, ".pi", "flows", "x.md"), FLOW);
		box.write(".pi/flows/mine.md", FLOW.replace("name: x", "name: mine"));
		const marker = join(box.root, "pwned-subagent");
		const flowScript = box.write("flow.yaml", script(marker));
		const calls = [{ name: "subagent", args: { flow: "../other/.pi/flows/x.md", input: "x" } }];
		const pi = rpc(box, {
			args: ["--model", "driver/driver"],
			env: { PI_FLOWS_TEST_SCRIPT: flowScript, PI_FLOWS_TEST_DRIVER: JSON.stringify(calls) },
			// The person trusts this project when asked.
			onUi: (r) => (r.method === "confirm" ? { confirmed: true } : undefined),
		});
		try {
			await pi.prompt("Please delegate.");
			await pi.waitFor((l) => l.type === "agent_settled", "the main session to settle", 90_000);
			const end = pi.lines.find((l) => l.type === "tool_execution_end") as (Line & { isError: boolean }) | undefined;
			expect(end?.isError).toBe(true);
			expect(JSON.stringify(end)).toContain("belongs to another repository");
			expect(existsSync(marker)).toBe(false);
		} finally {
			await pi.close();
		}
	}, 120_000);
});
