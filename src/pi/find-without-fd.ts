/**
 * pi's `find` tool on Node's own glob, for a machine without `fd`. pi's `find` runs `fd`, and where `fd` is
 * not installed it tries to download it, which fails offline (`fd is not available`): the shipped scout,
 * planner, reviewer and auditor list `find`, so their turns would see a tool that cannot work. pi lets the
 * tool take other operations (`FindOperations.glob`); this gives it Node's `fs.glob` with pi's own
 * semantics (a pattern without `/` matches file names at any depth, one with `/` is anchored at the search
 * folder; `node_modules` and `.git` skipped). Unlike `fd` it does not read `.gitignore`. Where `fd` is on
 * the PATH (or in pi's own `bin` folder) pi's tool runs as it is.
 *
 *   findWithoutFd("/repo", ["read", "find"], agentDir) → [pi's find definition on fs.glob] (no fd), or []
 */
import { accessSync, constants, existsSync } from "node:fs";
import { glob } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { createFindToolDefinition, type ToolDefinition } from "@earendil-works/pi-coding-agent";

/**
 * What {@link fdAvailable} found, by PATH and agent folder: every spawn asks, and probing a dozen folders
 * (a failed `accessSync` throws) was a tenth of a bare turn. Kept for the process: `fd` appearing mid-run
 * leaves that run's turns on the glob `find`, which answers the same.
 */
const FD_FOUND = new Map<string, boolean>();

/** Whether `fd` can run here: on the PATH, or where pi keeps the tools it fetched. */
export function fdAvailable(agentDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
	const key = `${env.PATH ?? ""}\0${agentDir}`;
	let found = FD_FOUND.get(key);
	if (found === undefined) {
		const dirs = [...(env.PATH ?? "").split(delimiter).filter(Boolean), join(agentDir, "bin")];
		found = dirs.some((dir) => {
			try {
				accessSync(join(dir, "fd"), constants.X_OK);
				return true;
			} catch {
				return false;
			}
		});
		if (FD_FOUND.size >= 64) FD_FOUND.clear();
		FD_FOUND.set(key, found);
	}
	return found;
}

const SKIPPED = new Set(["node_modules", ".git"]);

/** `find` on fs.glob for a turn that lists it, when `fd` cannot run; nothing otherwise. */
export function findWithoutFd(cwd: string, names: readonly string[], agentDir: string): ToolDefinition[] {
	if (!names.includes("find") || fdAvailable(agentDir)) return [];
	const definition = createFindToolDefinition(cwd, {
		operations: {
			exists: (path) => existsSync(path),
			glob: async (pattern, searchDir, options) => {
				const anchored = pattern.includes("/") ? pattern.replace(/^\.\//, "") : `**/${pattern}`;
				const found: string[] = [];
				const exclude = (path: string) => path.split(/[\\/]/).some((part) => SKIPPED.has(part));
				for await (const path of glob(anchored, { cwd: searchDir, exclude })) {
					found.push(join(searchDir, path));
					if (found.length >= options.limit) break;
				}
				return found;
			},
		},
	});
	return [definition as unknown as ToolDefinition];
}
