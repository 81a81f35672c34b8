/**
 * The one write guard: every place pi-flows or pi reads definitions, settings or credentials from, or
 * keeps a record it trusts. A turn's `write` or `edit` into one of them would become a definition or a
 * command of the next run (an agent with `bash` shadowing the shipped one in every project, a
 * `models.json` whose `apiKey: "!…"` pi runs as a command, a settings file picking the backend), so no turn
 * may write there, in the project, inside a `copies: true` worktree, or by landing a copy's patch.
 *
 * In: the folder a turn works in (and the run's record). Out: the guarded paths; `guardHit` says which
 * one a path falls in. Example: `guardHit("/repo/.claude/agents/x.md", guardedPaths({ cwd: "/repo" }))`
 * → "/repo/.claude/agents". `bash` is not guarded (docs/security.md, Known limits).
 */
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { agentDir, PACKAGE_ROOT } from "../agents/index.ts";
import { resolvesInside } from "../fs-safe/index.ts";

/**
 * In every project folder (and every folder above the one a turn works in, since definitions are found
 * walking up): pi-flows' definitions and records, pi's own gated resources and settings, and Claude
 * Code's agents, which pi-flows reads as agents.
 */
export const PROJECT_GUARDED: readonly string[] = [
	".pi/flows",
	".pi/agents",
	".pi/chains",
	".pi/skills",
	".pi/prompts",
	".pi/extensions",
	".pi/themes",
	".pi/settings.json",
	".pi/mcp.json",
	".pi/SYSTEM.md",
	".pi/APPEND_SYSTEM.md",
	".pi/runs",
	".pi/drive",
	".claude/agents",
	".agents/skills",
];

/** In the person's home: pi's folder whole (the agent folder, credentials, the run key), Claude Code's agents. */
const HOME_GUARDED: readonly string[] = [".pi", ".claude/agents", ".agents/skills"];

/** Where a turn works, and what else of the run is its record. */
export interface GuardPlaces {
	/** The folder the turn works in: the project, or a copy's worktree. */
	cwd: string;
	/** More folders whose project entries are guarded too (the run's own project when the turn is in a copy). */
	also?: readonly string[];
	/** The run's own record (its folder or runs home), wherever it is. */
	records?: readonly string[];
	env?: NodeJS.ProcessEnv;
}

/** Every guarded path for a turn working in `places.cwd`. */
export function guardedPaths(places: GuardPlaces): string[] {
	const env = places.env ?? process.env;
	const out = new Set<string>();
	for (const start of [places.cwd, ...(places.also ?? [])]) {
		for (let dir = resolve(start); ; dir = dirname(dir)) {
			for (const entry of PROJECT_GUARDED) out.add(join(dir, entry));
			if (dirname(dir) === dir) break;
		}
	}
	const home = env.HOME || homedir();
	for (const entry of HOME_GUARDED) out.add(join(home, entry));
	out.add(agentDir(env));
	out.add(join(PACKAGE_ROOT, "agents"));
	out.add(join(PACKAGE_ROOT, "flows"));
	for (const r of places.records ?? []) out.add(resolve(r));
	return [...out];
}

/** The guarded path `path` falls in (links followed where they exist), or undefined. */
export function guardHit(path: string, guarded: readonly string[]): string | undefined {
	return guarded.find((g) => resolvesInside(g, path));
}

/** Why a turn may not write `path`, in the words every refusal uses; undefined when it may. */
export function guardRefusal(path: string, guarded: readonly string[]): string | undefined {
	const hit = guardHit(path, guarded);
	return hit
		? `${path} is inside ${hit}, where pi-flows or pi reads definitions, settings, credentials or a run's record; pi-flows refuses this to every turn`
		: undefined;
}
