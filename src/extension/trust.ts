/**
 * Project agents and flows (`.pi/agents`, `.pi/flows`) are repository content: a cloned repository could
 * ship a flow whose agents have `bash`. They are loaded only when pi trusts the project or the person
 * confirms, once per session; otherwise they stay unread and a request for one is refused by its file.
 *
 * pi reports a folder as trusted by default when it holds nothing pi itself gates (its settings,
 * extensions, skills...). That default is no decision about our files, so it counts only when pi had
 * something to decide; otherwise we ask.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { markdownFiles, markdownFilesDeep, nearestProjectDir, type Sources } from "../agents/index.ts";
import { TRUST_ENV } from "../trust/index.ts";

/** Set to `1` to load project agents and flows without asking (headless runs in a repository you own). */
export { TRUST_ENV };

/** What pi gates behind project trust in 1.6; a resource missing here only makes us ask when pi would not. */
const PI_GATED = [
	"settings.json",
	"mcp.json",
	"extensions",
	"skills",
	"prompts",
	"themes",
	"SYSTEM.md",
	"APPEND_SYSTEM.md",
];

/** Decisions taken in this pi process, by project folder, so a person is asked once. */
export type TrustMemory = Map<string, boolean>;

/** The project's agent, flow and chain files, which trust is about. */
export function projectFiles(cwd: string): string[] {
	// Agents and chains are read from subfolders too (`.claude/agents/lst97/`, `chains/**`), so trust covers them.
	return projectDirs(cwd, "flows")
		.flatMap((dir) => markdownFiles(dir))
		.concat(
			projectDirs(cwd, "chains")
				.concat(projectDirs(cwd, "agents"))
				.flatMap((dir) => markdownFilesDeep(dir)),
		);
}

/**
 * The project's folders of `kind`: `.pi/<kind>` (pi-subagents' `.chain.md` files in `.pi/chains` too), and
 * for agents Claude Code's `.claude/agents` (same trust).
 */
function projectDirs(cwd: string, kind: "flows" | "agents" | "chains"): string[] {
	const dirs = [nearestProjectDir(cwd, kind)];
	if (kind === "agents") {
		const claude = nearestProjectDir(cwd, "agents", ".claude");
		// ~/.claude/agents is the user's own folder, read with the user's scope, not a repository's.
		if (claude && resolve(claude) !== resolve(homedir(), ".claude", "agents")) dirs.push(claude);
	}
	return dirs.filter((d): d is string => !!d);
}

/**
 * The scope to read definitions with: the project's files only when trusted. Asks (ctx.ui.confirm) when
 * there are project files, pi made no decision, and a person is there.
 */
export async function projectSources(ctx: ExtensionContext, memory: TrustMemory): Promise<Sources> {
	const files = projectFiles(ctx.cwd);
	if (files.length === 0) return { project: false };
	if (process.env[TRUST_ENV] === "1" || (ctx.isProjectTrusted() && piDecided(ctx.cwd))) return { project: true };
	const root = dirname(dirname(files[0]));
	const known = memory.get(root);
	if (known !== undefined) return { project: known };
	if (!ctx.hasUI) return { project: false };
	const shown = files.slice(0, 8).map((f) => `  ${relativeTo(ctx.cwd, f)}`);
	if (files.length > shown.length) shown.push(`  … and ${files.length - shown.length} more`);
	const yes = await ctx.ui.confirm(
		"Load this project's agents and flows?",
		`This repository ships pi-flows definitions:\n${shown.join("\n")}\n\nThey are repository content: their prompts and tools run with your permissions. Load them for this session?`,
	);
	memory.set(root, yes);
	return { project: yes };
}

/** The refusal for a name that only the untrusted project defines, naming its file; undefined otherwise. */
export function untrustedRefusal(cwd: string, kind: "flows" | "agents", name: string): string | undefined {
	const file = projectDirs(cwd, kind)
		.flatMap((dir) => (kind === "agents" ? markdownFilesDeep(dir) : markdownFiles(dir)))
		.find((f) => f.endsWith(`/${name}.md`));
	if (!file) return undefined;
	const what = kind === "flows" ? "flow" : "agent";
	return `${relativeTo(cwd, file)} is this project's ${what} \`${name}\`, and this project is not trusted: project agents and flows are repository content and load only in a project pi trusts or when you confirm (set ${TRUST_ENV}=1 to allow them without asking). Nothing was run.`;
}

/** Whether pi's trust answer for `cwd` was a decision (something was gated) rather than its default. */
function piDecided(cwd: string): boolean {
	// pi also gates `.agents/skills` up the tree; leaving it out only makes us ask where pi already did.
	const config = join(resolve(cwd), ".pi");
	return PI_GATED.some((entry) => existsSync(join(config, entry)));
}

/** A path as a person in `cwd` would type it: relative inside the working folder, `~` for the home folder. */
export function relativeTo(cwd: string, file: string): string {
	const base = resolve(cwd);
	if (file.startsWith(`${base}/`)) return file.slice(base.length + 1);
	const home = homedir();
	return home && home !== "/" && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}
