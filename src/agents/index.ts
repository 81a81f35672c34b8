export { type AgentDef, type AgentSkill, type BrokenAgent, parseAgentFile, type Source } from "./agent.ts";
export {
	agentDir,
	definitionDirs,
	nearestProjectDir,
	PACKAGE_ROOT,
	projectRoot,
	type Scope,
} from "./locations.ts";
export { type AgentNote, DEFAULT_TOOLS, type Lifetime, LIFETIMES } from "./peer-keys.ts";
export { loadRoster, markdownFiles, type Roster, rosterOf } from "./roster.ts";
export {
	type AgentSkillProblem,
	agentSkillProblems,
	findSkill,
	type Skill,
	type SkillDir,
	skillDirs,
	skillNames,
	skillsIn,
} from "./skills.ts";
export { SUBAGENT_TOOLS, unknownTools } from "./tools.ts";
