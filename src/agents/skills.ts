/**
 * Skills an agent node (or a chain step's `--skill`) can be given: pi's skill folders, `<name>/SKILL.md`
 * under the user's `<agentDir>/skills` and the project's nearest `.pi/skills` (project only when asked).
 * A skill's text is appended to the subagent's system prompt; an unknown name is a fault before the run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentDir, nearestProjectDir, type Scope } from "./locations.ts";

/** A skill as a subagent receives it. */
export interface Skill {
	name: string;
	file: string;
	/** SKILL.md without its frontmatter. */
	text: string;
}

/** Skill folders in precedence order (later wins a name). */
function skillDirs(cwd: string, scope: Scope, env: NodeJS.ProcessEnv): string[] {
	const dirs = [join(agentDir(env), "skills")];
	if (scope.project) {
		const agents = nearestProjectDir(cwd, "agents");
		const base = agents ? join(agents, "..", "skills") : join(cwd, ".pi", "skills");
		dirs.push(base);
	}
	return dirs;
}

/** Finds a skill by name; undefined when there is none (or its name would leave the folder). */
export function findSkill(
	name: string,
	cwd: string,
	scope: Scope = {},
	env: NodeJS.ProcessEnv = process.env,
): Skill | undefined {
	if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) return undefined;
	for (const dir of skillDirs(cwd, scope, env).reverse()) {
		const file = join(dir, name, "SKILL.md");
		if (existsSync(file) && statSync(file).isFile()) {
			const text = readFileSync(file, "utf8")
				.replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n?/, "")
				.trim();
			return { name, file, text };
		}
	}
	return undefined;
}

/** Every skill name the scope can see, for did-you-mean. */
export function skillNames(cwd: string, scope: Scope = {}, env: NodeJS.ProcessEnv = process.env): string[] {
	const names = new Set<string>();
	for (const dir of skillDirs(cwd, scope, env)) {
		if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
		for (const entry of readdirSync(dir)) if (existsSync(join(dir, entry, "SKILL.md"))) names.add(entry);
	}
	return [...names].sort();
}
