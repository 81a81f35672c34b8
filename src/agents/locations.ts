/**
 * Where agent and flow files live. The agent dir follows pi's rule (`PI_CODING_AGENT_DIR`, tilde-expanded,
 * else `~/.pi/agent`), read at call time so tests and CLI runs can point it at a temp folder; a test pins
 * this to pi's own `getAgentDir()`.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PACKAGE_ROOT } from "../package/index.ts";
import type { AgentPeer } from "./peer-keys.ts";

/** pi's agent dir, as pi computes it. */
export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env.PI_CODING_AGENT_DIR;
	if (fromEnv) {
		if (fromEnv === "~") return homedir();
		if (fromEnv.startsWith("~/")) return join(homedir(), fromEnv.slice(2));
		return resolve(fromEnv);
	}
	return join(homedir(), ".pi", "agent");
}

/** The package root (where `agents/`, `flows/` and `grammar/` ship). */
export { PACKAGE_ROOT };

/** The nearest `<dir>/.pi/<kind>` (or `<dir>/<base>/<kind>`) walking up from `cwd`, or undefined. */
export function nearestProjectDir(cwd: string, kind: "agents" | "flows" | "chains", base = ".pi"): string | undefined {
	let dir = resolve(cwd);
	for (;;) {
		const candidate = join(dir, base, kind);
		if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

/** Which sources a lookup may read. Project files are repository-controlled, so they are opt-in. */
export interface Sources {
	/** Read the package's own agents/flows. Default true. */
	shipped?: boolean;
	/** Read the user's folder under the agent dir. Default true. */
	user?: boolean;
	/** Read the nearest `.pi/` of the project. Default false. */
	project?: boolean;
}

/**
 * The folders to read for `kind`, in precedence order (later wins a name). For agents, Claude Code's folders
 * come first, so they never shadow a name pi's own folders give:
 *
 *   ~/.claude/agents  <  .claude/agents  <  shipped  <  <agentDir>/agents  <  .pi/agents
 *
 * `~/.claude/agents` is read with the user's scope; `.claude/agents` is repository content, read with the
 * project's scope and trusted exactly as `.pi/agents` is. Both are marked Claude Code's (`peer`), whose
 * defaults their files get.
 */
export function definitionDirs(
	kind: "agents" | "flows",
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
): DefinitionDir[] {
	const dirs: DefinitionDir[] = [];
	if (kind === "agents") {
		const home = claudeHome(env);
		if (scope.user ?? true) dirs.push({ dir: home, source: "user", peer: "claude-code" });
		if (scope.project ?? false) {
			const claude = projectClaudeDir(cwd, env);
			if (claude) dirs.push({ dir: claude, source: "project", peer: "claude-code" });
		}
	}
	if (scope.shipped ?? true) dirs.push({ dir: join(PACKAGE_ROOT, kind), source: "shipped" });
	if (scope.user ?? true) dirs.push({ dir: join(agentDir(env), kind), source: "user" });
	if (scope.project ?? false) {
		const project = nearestProjectDir(cwd, kind);
		if (project) dirs.push({ dir: project, source: "project" });
	}
	return dirs;
}

/** A folder definitions are read from, its source, and the peer whose folder it is (Claude Code's). */
export interface DefinitionDir {
	dir: string;
	source: "shipped" | "user" | "project";
	peer?: AgentPeer;
}

/** The user's Claude Code agents folder, `~/.claude/agents`. */
export function claudeHome(env: NodeJS.ProcessEnv = process.env): string {
	return join(env.HOME || homedir(), ".claude", "agents");
}

/**
 * The project's Claude Code agents folder, the nearest `.claude/agents` walking up. Walking up from a project
 * inside the home folder can reach `~/.claude`: that one is the user's, not the repository's.
 */
export function projectClaudeDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
	const claude = nearestProjectDir(cwd, "agents", ".claude");
	return claude && resolve(claude) !== resolve(claudeHome(env)) ? claude : undefined;
}

/** The project a folder belongs to: the nearest ancestor holding `.git`, else the folder itself. */
export function projectRoot(cwd: string): string {
	let dir = resolve(cwd);
	for (;;) {
		if (existsSync(join(dir, ".git"))) return dir;
		const parent = dirname(dir);
		if (parent === dir) return resolve(cwd);
		dir = parent;
	}
}
