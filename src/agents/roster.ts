/**
 * The roster: every agent by name, found shipped < user < project, the later source winning a name. A
 * broken file is an entry too, so a lookup can say "broken" with its cause instead of "unknown".
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { nearest } from "../faults/index.ts";
import { type AgentDef, type BrokenAgent, parseAgentFile } from "./agent.ts";
import { definitionDirs, type Scope } from "./locations.ts";
import { findSkill, skillNames } from "./skills.ts";

/** The agents a flow may name. */
export interface Roster {
	/** Every name, the winning entry for each. */
	readonly entries: ReadonlyMap<string, AgentDef | BrokenAgent>;
	/** Entries a later source shadowed, for `list` and diagnostics. */
	readonly shadowed: readonly (AgentDef | BrokenAgent)[];
	get(name: string): AgentDef | BrokenAgent | undefined;
	names(): string[];
}

/** Builds a roster from entries in precedence order. */
export function rosterOf(entries: Iterable<AgentDef | BrokenAgent>): Roster {
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
	};
}

/** Reads every agent file the scope allows. */
export function loadRoster(cwd: string, scope: Scope = {}, env: NodeJS.ProcessEnv = process.env): Roster {
	const found: (AgentDef | BrokenAgent)[] = [];
	for (const { dir, source } of definitionDirs("agents", cwd, scope, env)) {
		// pi-subagents keeps its `.chain.md` chains beside its agents: those are flows (load/find.ts).
		for (const file of markdownFiles(dir).filter((f) => !f.endsWith(".chain.md"))) {
			const fallback = basename(file, ".md");
			let text: string;
			try {
				text = readFileSync(file, "utf8");
			} catch (error) {
				found.push({ kind: "broken", name: fallback, file, source, cause: `it cannot be read: ${String(error)}` });
				continue;
			}
			const parsed = parseAgentFile(text, file, source, fallback);
			// A file's name is its identity for shadowing: `name:` that disagrees would let a project file
			// hide under another agent's name, so it is refused like combo refuses a mismatched flow name.
			if (parsed.kind === "agent" && parsed.name !== fallback) {
				found.push({
					kind: "broken",
					name: fallback,
					file,
					source,
					cause: `its \`name: ${parsed.name}\` differs from its file name`,
				});
				continue;
			}
			found.push(parsed.kind === "agent" ? withSkills(parsed, cwd, scope, env) : parsed);
		}
	}
	return rosterOf(found);
}

/**
 * The agent with each of its `skills:` looked up, beside its file first (skills.ts). Done when the roster is
 * read, so the checker, a run's snapshot and the spawn all see the one answer, and a resumed run the same.
 */
function withSkills(agent: AgentDef, cwd: string, scope: Scope, env: NodeJS.ProcessEnv): AgentDef {
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

/** `*.md` files directly in `dir`, sorted; a missing folder has none. */
export function markdownFiles(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true })
			.filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".md"))
			.map((e) => join(dir, e.name))
			.sort();
	} catch {
		// A folder that does not exist holds no definitions; that is the common case, not an error.
		return [];
	}
}
