/**
 * The roster: every agent by name, found shipped < user < project (Claude Code's folders below pi's), the
 * later source winning a name. A broken file is an entry too, so a lookup can say "broken" with its cause
 * instead of "unknown".
 */
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { nearest } from "../faults/index.ts";
import { type AgentDef, type BrokenAgent, parseAgentFile } from "./agent.ts";
import { definitionDirs, type Sources } from "./locations.ts";
import { markdownFiles, markdownFilesDeep } from "./roster-files.ts";
import { type RosterPlaces, rosterPlaces } from "./roster-places.ts";
import { findSkill, skillNames } from "./skills.ts";

/** The agents a flow may name. */
export interface Roster {
	/** Every name, the winning entry for each. */
	readonly entries: ReadonlyMap<string, AgentDef | BrokenAgent>;
	/** Entries a later source shadowed, for `list` and diagnostics. */
	readonly shadowed: readonly (AgentDef | BrokenAgent)[];
	get(name: string): AgentDef | BrokenAgent | undefined;
	names(): string[];
	/** Where it was read from, and the project agents it skipped for trust; absent for a roster built by hand. */
	readonly places?: RosterPlaces;
}

/** Builds a roster from entries in precedence order. */
export function rosterOf(entries: Iterable<AgentDef | BrokenAgent>, places?: RosterPlaces): Roster {
	const map = new Map<string, AgentDef | BrokenAgent>();
	const shadowed: (AgentDef | BrokenAgent)[] = [];
	for (const entry of entries) {
		const previous = map.get(entry.name);
		if (previous) shadowed.push(previous);
		map.set(entry.name, entry);
	}
	return {
		entries: map,
		shadowed,
		get: (name) => map.get(name),
		names: () => [...map.keys()].sort(),
		...(places ? { places } : {}),
	};
}

/**
 * Reads every agent file the scope allows, each folder recursively (Claude Code reads `.claude/agents/**`,
 * pi-subagents `agents/**`), keyed by its `name:` as both key it: lst97's collection installs into
 * `~/.claude/agents/lst97/`, and wshobson's `electron-pro` lives in a file of another name. A file that is
 * not an agent where its peer would skip it is skipped too (a README beside the agents, a template): in a
 * Claude Code folder or a subfolder, a file without `name:` and `description:` frontmatter. In a pi folder's
 * top level such a file stays a broken entry, so a broken `scout.md` is reported rather than silently
 * falling back to another `scout`.
 */
export function loadRoster(cwd: string, scope: Sources = {}, env: NodeJS.ProcessEnv = process.env): Roster {
	const found: (AgentDef | BrokenAgent)[] = [];
	for (const { dir, source, peer } of definitionDirs("agents", cwd, scope, env)) {
		// pi-subagents keeps its `.chain.md` chains beside its agents: those are flows (load/find.ts).
		for (const file of markdownFilesDeep(dir).filter((f) => !f.endsWith(".chain.md"))) {
			const fallback = basename(file, ".md");
			let text: string;
			try {
				text = readFileSync(file, "utf8");
			} catch (error) {
				found.push({ kind: "broken", name: fallback, file, source, cause: `it cannot be read: ${String(error)}` });
				continue;
			}
			const parsed = parseAgentFile(text, file, source, fallback, peer ? { peer } : {});
			const nested = dirname(file) !== dir;
			if (parsed.kind === "broken" && (peer || nested) && !isAgentShaped(parsed)) continue;
			found.push(parsed.kind === "agent" ? withSkills(parsed, cwd, scope, env) : parsed);
		}
	}
	return rosterOf(found, rosterPlaces(cwd, scope, env));
}

/** A broken file that still meant to be an agent: it has frontmatter naming it and describing it. */
function isAgentShaped(entry: BrokenAgent): boolean {
	return !/^it has no `---` frontmatter|^it lacks `(name|description):`|^its frontmatter is not a mapping/.test(
		entry.cause,
	);
}

/**
 * The agent with each of its `skills:` looked up, beside its file first (skills.ts). Done when the roster is
 * read, so the checker, a run's snapshot and the spawn all see the one answer, and a resumed run the same.
 */
function withSkills(agent: AgentDef, cwd: string, scope: Sources, env: NodeJS.ProcessEnv): AgentDef {
	if (!agent.skills?.length) return agent;
	let names: string[] | undefined;
	const skills = agent.skills.map((s) => {
		const skill = findSkill(s.name, cwd, scope, env, agent.file);
		if (skill) return { ...s, skill };
		names ??= skillNames(cwd, scope, env, agent.file);
		const near = nearest(s.name, names);
		return { ...s, ...(near ? { near } : {}) };
	});
	return { ...agent, skills };
}

export { markdownFiles, markdownFilesDeep };
