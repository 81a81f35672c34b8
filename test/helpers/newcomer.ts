/**
 * Issue 20's newcomer flows, read from docs/first-flows.md (so the page and the tests cannot drift), and an
 * in-process `pi-flows`: what a person at a terminal reads, without a subprocess per call.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { main } from "../../src/cli/main.ts";
import type { TempProject } from "./project.ts";

/** The files the walk-through shows, by path: every fenced block with `file=<path>` in its info line. */
export const DOC_FILES: ReadonlyMap<string, string> = new Map(
	[
		...readFileSync(join(PACKAGE_ROOT, "docs", "first-flows.md"), "utf8").matchAll(
			/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm,
		),
	].map((m) => [m[1], m[2]]),
);

function docFile(path: string): string {
	const text = DOC_FILES.get(path);
	if (text === undefined) throw new Error(`docs/first-flows.md has no block for ${path}`);
	return text;
}

/** A triage flow: a typed scout, a choice, a coder/reviewer loop with a verdict ledger. */
export const TRIAGE = docFile(".pi/flows/triage.md");

/** A per-file review: a typed planner, a map over its list at concurrency 3, a synthesiser. */
export const REVIEW = docFile(".pi/flows/review.md");

/** Runs `pi-flows ...` in-process; what it printed, by stream. */
export async function cli(project: TempProject, ...argv: string[]) {
	const out: string[] = [];
	const err: string[] = [];
	const code = await main(argv, {
		cwd: project.cwd,
		env: project.env,
		agentDir: project.agentDir,
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
	});
	return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}
