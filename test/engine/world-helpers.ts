/**
 * Helpers for tests that touch the world: a git repository in a temp project, a flow checked inline
 * (for the run stage), and visit paths read from a result.
 */
import { execFileSync } from "node:child_process";
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import type { FlowResult } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import type { TempProject } from "../helpers/project.ts";

/** Runs git in `cwd` with a fixed identity; throws on failure, returns trimmed stdout. */
export function git(cwd: string, args: string[]): string {
	const env = { ...process.env };
	for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) delete env[name];
	return execFileSync(
		"git",
		["-c", "user.name=Test Person", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args],
		{
			cwd,
			env,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "pipe"],
		},
	).trim();
}

/**
 * Makes the project a repository on `main` with `files` committed. `.pi/flows/` is ignored, so the flows a
 * test writes there are neither in a diff nor in a commit.
 */
export function gitProject(project: TempProject, files: Record<string, string> = {}): void {
	git(project.cwd, ["init", "-q", "-b", "main"]);
	project.write(".gitignore", ".pi/flows/\n");
	for (const [path, text] of Object.entries(files)) project.write(path, text);
	git(project.cwd, ["add", "-A"]);
	git(project.cwd, ["commit", "-q", "-m", "initial"]);
}

/** The flow `name` checked as `.pi/flows/<name>.md` of the project (callees found there too). */
export function checkedInline(project: TempProject, name: string, text: string): CheckedFlow {
	project.write(`.pi/flows/${name}.md`, text);
	const sources = { project: true };
	const roster = loadRoster(project.cwd, sources, project.env);
	const checked = checkFlowText(
		text,
		`${project.cwd}/.pi/flows/${name}.md`,
		roster,
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value)
		throw new Error(
			`the test flow does not check:\n${checked.faults.map((f) => `${f.line}:${f.column} ${f.code} ${f.message}`).join("\n")}`,
		);
	return checked.value;
}

/** Visit paths in the order they ended, optionally only those under `prefix`. */
export function paths(result: FlowResult, prefix = ""): string[] {
	return result.visits.map((v) => v.path).filter((p) => p.startsWith(prefix));
}

/** The output of the visit at `path`. */
export function outputAt(result: FlowResult, path: string): unknown {
	const v = result.visits.find((x) => x.path === path);
	if (!v) throw new Error(`no visit ${path}; visits: ${paths(result).join(", ")}`);
	return v.output;
}
