/**
 * Attack set-ups for the security tests: temp git repositories with their own pi agent folders (so each
 * "person" has their own run key), and the real `pi-flows` CLI run in them.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type TempProject, tempProject } from "../helpers/project.ts";

const made: TempProject[] = [];

/** A temp git repository with its own agent folder; removed by {@link cleanup}. */
export function repo(): TempProject {
	const p = tempProject();
	made.push(p);
	git(p, "init", "-q");
	return p;
}

export function cleanup(): void {
	for (const p of made.splice(0)) p.cleanup();
}

/** Runs git in the project, with an identity so commits work anywhere. */
export function git(p: TempProject, ...args: string[]): string {
	const r = spawnSync("git", args, {
		cwd: p.cwd,
		encoding: "utf8",
		env: {
			...process.env,
			GIT_AUTHOR_NAME: "t",
			GIT_AUTHOR_EMAIL: "t@t",
			GIT_COMMITTER_NAME: "t",
			GIT_COMMITTER_EMAIL: "t@t",
		},
	});
	if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
	return r.stdout;
}

/** The `pi-flows` CLI in the project, as the person would type it. */
export function cli(p: TempProject, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: p.cwd,
		env: p.env,
		encoding: "utf8",
		timeout: 120_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The run folders under the project's `.pi/runs`, by name. */
export function runFolders(p: TempProject): string[] {
	try {
		return readdirSync(join(p.cwd, ".pi", "runs")).sort();
	} catch {
		return [];
	}
}

/** A flow whose first node is an agent and whose second runs the check script `.pi/checks/t.sh`. */
export const BUILD_FLOW = `---
name: build
description: looks, then runs the project's tests
input: string
nodes:
  - id: first
    agent: scout
  - id: tests
    check: .pi/checks/t.sh
---
## first
Look.
`;

/** A script whose `first` turn fails with a provider error: the run fails at its first node, resumable. */
export const FAILING_SCRIPT = "turns:\n  first:\n    - fail: boom\n";
