/**
 * Skills, found the way pi finds them: a folder holding `SKILL.md` (or a `.md` file with a `description:`
 * at the top of a skills folder), named by its frontmatter's `name:` (else its folder's name). A node's
 * `skills:` (or a chain step's `--skill`) and an agent file's `skills:` look names up here, nearest first:
 *
 *   <agent file without .md>/skills/   (an agent's own skills: `agents/scout.md` → `agents/scout/skills/`)
 *   <agent file's folder>/../skills/   (its folder's sibling: Claude Code's `.claude/skills/` for its agents)
 *   the project's nearest .pi/skills/  (with the project's scope)
 *   <agentDir>/skills/                 (the user's)
 *
 * The folder beside an agent file is looked in only for that agent's own `skills:`: a skill shipped with its
 * agent travels with it, as in combo. A name found nowhere is a fault before the run, with the nearest name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import type { AgentDef, AgentSkill } from "./agent.ts";
import { agentDir, nearestProjectDir, type Sources } from "./locations.ts";

/** A skill as a subagent receives it. */
export interface Skill {
	name: string;
	/** The skill's `SKILL.md` (or `.md` file). */
	file: string;
	/** The folder its relative references resolve against (the file's folder). */
	dir: string;
	/** Its frontmatter's `description:` (pi lists a skill by it); empty when it has none. */
	description: string;
	/**
	 * `disable-model-invocation: true`: pi keeps the skill out of the model's list, for a person to call with
	 * `/skill:<name>`. An agent's `skills:` is such a list, so naming one there is `skill-hidden`.
	 */
	hidden?: boolean;
	/** The file without its frontmatter. */
	text: string;
}

/** Where a skill was found, nearest first. */
export interface SkillDir {
	dir: string;
	source: "agent" | "project" | "user";
}

/** The folders a name is looked up in, nearest first; `agentFile` adds the agent's own folder. */
export function skillDirs(
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
	agentFile?: string,
): SkillDir[] {
	const dirs: SkillDir[] = [];
	if (scope.project) {
		const agents = nearestProjectDir(cwd, "agents");
		dirs.push({ dir: agents ? join(agents, "..", "skills") : join(cwd, ".pi", "skills"), source: "project" });
	}
	if (scope.user !== false) dirs.push({ dir: join(agentDir(env), "skills"), source: "user" });
	if (!agentFile?.endsWith(".md")) return dirs;
	const own: SkillDir[] = [{ dir: join(agentFile.slice(0, -".md".length), "skills"), source: "agent" }];
	// The `skills/` beside the agent's folder, when it is not the project's or the user's: Claude Code's
	// `.claude/skills/` for an agent of `.claude/agents/`.
	const sibling = resolve(dirname(agentFile), "..", "skills");
	if (!dirs.some((d) => resolve(d.dir) === sibling)) own.push({ dir: sibling, source: "agent" });
	return [...own, ...dirs];
}

/** Finds a skill by name, nearest folder first; undefined when there is none. */
export function findSkill(
	name: string,
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
	agentFile?: string,
): Skill | undefined {
	for (const { dir } of skillDirs(cwd, scope, env, agentFile)) {
		const found = skillsIn(dir).find((s) => s.name === name);
		if (found) return found;
	}
	return undefined;
}

/** Every skill name the scope can see, for did-you-mean. */
export function skillNames(
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
	agentFile?: string,
): string[] {
	const names = new Set<string>();
	for (const { dir } of skillDirs(cwd, scope, env, agentFile)) for (const s of skillsIn(dir)) names.add(s.name);
	return [...names].sort();
}

/**
 * The skills of one folder, by pi's discovery rules: a folder with `SKILL.md` is one skill (nothing below it
 * is searched); other folders are searched; a `.md` file directly in the top folder is a skill when it has a
 * `description:`. Hidden entries and `node_modules` are skipped. The first file to carry a name wins it.
 */
export function skillsIn(dir: string): Skill[] {
	const out: Skill[] = [];
	const seen = new Set<string>();
	const add = (skill: Skill | undefined) => {
		if (skill && !seen.has(skill.name)) {
			seen.add(skill.name);
			out.push(skill);
		}
	};
	const walk = (folder: string, top: boolean, depth: number) => {
		let entries: string[];
		try {
			entries = readdirSync(folder).sort();
		} catch {
			// A folder that does not exist holds no skills; that is the common case, not an error.
			return;
		}
		if (entries.includes("SKILL.md") && isFile(join(folder, "SKILL.md"))) {
			add(readSkill(join(folder, "SKILL.md"), true));
			return;
		}
		for (const entry of entries) {
			if (entry.startsWith(".") || entry === "node_modules") continue;
			const path = join(folder, entry);
			if (isDir(path)) {
				if (depth < 8) walk(path, false, depth + 1);
			} else if (top && entry.endsWith(".md") && isFile(path)) add(readSkill(path, false));
		}
	};
	walk(dir, true, 0);
	return out;
}

/** One skill file; a loose `.md` without a description is not a skill (pi's rule), a `SKILL.md` always is. */
function readSkill(file: string, declared: boolean): Skill | undefined {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
	const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	let fm: Record<string, unknown> = {};
	if (match) {
		try {
			const data = parse(match[1]) as unknown;
			if (data && typeof data === "object" && !Array.isArray(data)) fm = data as Record<string, unknown>;
		} catch {
			// A frontmatter that does not parse leaves the file nameless; its folder's name still names it.
			if (!declared) return undefined;
		}
	}
	const description = typeof fm.description === "string" ? fm.description.trim() : "";
	if (!declared && !description) return undefined;
	const folder = dirname(file);
	const name = typeof fm.name === "string" && fm.name.trim() ? fm.name.trim() : basename(folder);
	return {
		name,
		file,
		dir: folder,
		description,
		...(fm["disable-model-invocation"] === true ? { hidden: true } : {}),
		text: (match ? text.slice(match[0].length) : text).trim(),
	};
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

function isDir(path: string): boolean {
	try {
		return existsSync(path) && statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** One reason an agent's `skills:` cannot be given to its subagent, in the order they are found. */
export interface AgentSkillProblem {
	code: "skills-without-read" | "unknown-skill" | "skill-hidden";
	message: string;
	/** The nearest skill name, for an unknown one. */
	near?: string;
}

/**
 * Why an agent's own `skills:` would not reach its model, as the roster looked them up: its tools leave out
 * `read` (pi lists skills only to a model that can open them), a name is found nowhere, or a skill sets
 * `disable-model-invocation` (pi keeps it out of the model's list). The one rule for every surface: the
 * checker reports these where a node names the agent; the `subagent` tool and `/step` refuse the agent.
 */
export function agentSkillProblems(agent: AgentDef): AgentSkillProblem[] {
	if (!agent.skills?.length) return [];
	const where = (s: AgentSkill) => `${agent.file}:${s.line}:${s.column}`;
	const problems: AgentSkillProblem[] = [];
	if (!agent.tools.includes("read"))
		problems.push({
			code: "skills-without-read",
			message: `the agent \`${agent.name}\` names skills (${where(agent.skills[0])}) but its tools (${agent.tools.join(", ") || "none"}) leave out \`read\`: its model could not open one`,
		});
	for (const s of agent.skills) {
		if (!s.skill)
			problems.push({
				code: "unknown-skill",
				message: `the agent \`${agent.name}\` names the skill \`${s.name}\` (${where(s)}), found in none of its folders (beside the agent file and its folder, the project's \`.pi/skills/\`, \`<agentDir>/skills/\`).${s.near ? ` Did you mean \`${s.near}\`?` : ""}`,
				...(s.near ? { near: s.near } : {}),
			});
		else if (s.skill.hidden)
			problems.push({
				code: "skill-hidden",
				message: `the agent \`${agent.name}\` names the skill \`${s.name}\` (${where(s)}), whose ${s.skill.file} sets \`disable-model-invocation\`: pi keeps it out of the model's list, so the agent would never see it`,
			});
	}
	return problems;
}
