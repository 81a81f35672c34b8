export { type AgentDef, type AgentSkill, type BrokenAgent, parseAgentFile, type Source } from "./agent.ts";
export { type Frontmatter, readFrontmatter } from "./frontmatter.ts";
export {
	agentDir,
	claudeHome,
	type DefinitionDir,
	definitionDirs,
	nearestProjectDir,
	PACKAGE_ROOT,
	projectClaudeDir,
	projectRoot,
	type Sources,
} from "./locations.ts";
export {
	type AgentNote,
	type AgentPeer,
	DEFAULT_TOOLS,
	type Lifetime,
	LIFETIMES,
	PEER_DEFAULT_TOOLS,
} from "./peer-keys.ts";
export { loadRoster, markdownFiles, markdownFilesDeep, type Roster, rosterOf } from "./roster.ts";
export { agentNamesIn } from "./roster-files.ts";
export { type RosterPlaces, rosterPlaces, skippedSentence } from "./roster-places.ts";
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
export { mayWriteWith, SUBAGENT_TOOLS, unknownTools, WRITING_TOOLS } from "./tools.ts";
