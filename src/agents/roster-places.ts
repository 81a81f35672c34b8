/**
 * Where a roster looked, said the way a person names the folders, and which of the project's agents it did
 * not read because the project is not trusted. An unknown agent is then answered with both: the folders
 * searched (Claude Code's among them) and, when the project defines the name, the file and how to trust it.
 *
 *   no agent `electron-pro`. … they are the agent files of `~/.claude/agents/`, the package's `agents/`,
 *   `~/.pi/agent/agents/`; the project's `.claude/agents/lst97/electron-pro.md` defines it but was not read …
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, relative } from "node:path";
import { parseAgentFile } from "./agent.ts";
import { definitionDirs, nearestProjectDir, projectClaudeDir, projectRoot, type Sources } from "./locations.ts";
import { markdownFilesDeep } from "./roster-files.ts";

/** The folders a roster read and the project agents it skipped. */
export interface RosterPlaces {
	/** Each folder read, in precedence order, as a person names it (`~/.claude/agents/`). */
	read: string[];
	/** The project's agent folders, when the scope did not read them (the project is not trusted). */
	unread: string[];
	/** The agents those folders define, by name, each with its file as a person names it. Read on demand. */
	skipped(): { name: string; file: string }[];
}

/** The places of the roster `loadRoster(cwd, scope, env)` reads. */
export function rosterPlaces(cwd: string, scope: Sources, env: NodeJS.ProcessEnv): RosterPlaces {
	const home = env.HOME || homedir();
	const root = projectRoot(cwd);
	const show = (dir: string, source: string) => {
		if (source === "shipped") return "the package's `agents/`";
		if (source === "project") return `\`${relative(root, dir)}/\``;
		return dir.startsWith(`${home}/`) ? `\`~/${relative(home, dir)}/\`` : `\`${dir}/\``;
	};
	const read = definitionDirs("agents", cwd, scope, env).map(({ dir, source }) => show(dir, source));
	const project =
		(scope.project ?? false)
			? []
			: [nearestProjectDir(cwd, "agents"), projectClaudeDir(cwd, env)].filter((d): d is string => !!d);
	let skipped: { name: string; file: string }[] | undefined;
	return {
		read,
		unread: project.map((d) => `\`${relative(root, d)}/\``),
		skipped() {
			skipped ??= project.flatMap((dir) =>
				markdownFilesDeep(dir).flatMap((file) => {
					let text: string;
					try {
						text = readFileSync(file, "utf8");
					} catch {
						// An unreadable file names nothing; the message is only ever a hint.
						return [];
					}
					const parsed = parseAgentFile(text, file, "project", basename(file, ".md"));
					return [{ name: parsed.name, file: relative(root, file) }];
				}),
			);
			return skipped;
		},
	};
}

/** The sentence an unknown agent's message ends with when the untrusted project has agents, or "". */
export function skippedSentence(places: RosterPlaces, name: string): string {
	if (!places.unread.length) return "";
	const defined = places.skipped().find((s) => s.name === name);
	const trust = "run with `--project`, or trust the project in pi";
	if (defined)
		return ` The project's \`${defined.file}\` defines \`${name}\`, but the project's agents (${places.unread.join(", ")}) are read only when it is trusted: ${trust}.`;
	return ` The project's agents (${places.unread.join(", ")}) were not read: the project is not trusted (${trust}).`;
}
