/**
 * Where flows are found: the package's `flows/`, the user's `<agentDir>/flows/`, and (only when asked)
 * the project's nearest `.pi/flows/`; a later source wins a name. A name is a file name without `.md`.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { definitionDirs, markdownFiles, type Scope, type Source } from "../agents/index.ts";
import { byCloseness, nearest } from "../faults/index.ts";

/** A flow file found in one of the sources. */
export interface FlowEntry {
	name: string;
	file: string;
	source: Source;
}

/** A flow's name: its file name without `.md`, or without `.chain.md` for a pi-subagents chain file. */
export function flowNameOf(file: string): string {
	return file.endsWith(".chain.md") ? basename(file, ".chain.md") : basename(file, ".md");
}

/**
 * The folders flows are read from, in precedence order. pi-subagents keeps its `.chain.md` chains in
 * `<agentDir>/chains/`, `.pi/chains/` and beside its agents; those are read as flows, each source's `flows/`
 * still winning a name within that source.
 */
function flowDirs(cwd: string, scope: Scope, env: NodeJS.ProcessEnv): { dir: string; source: Source; chainsOnly: boolean }[] {
	const agents = definitionDirs("agents", cwd, scope, env);
	return definitionDirs("flows", cwd, scope, env).flatMap(({ dir, source }) => {
		const root = dirname(dir);
		const beside = agents.filter((a) => a.source === source && dirname(a.dir) === root).map((a) => ({ dir: a.dir, source, chainsOnly: true }));
		return [{ dir: join(root, "chains"), source, chainsOnly: true }, ...beside, { dir, source, chainsOnly: false }];
	});
}

/** Every flow the scope can see, the winning file per name, sorted by name. */
export function listFlows(cwd: string, scope: Scope = {}, env: NodeJS.ProcessEnv = process.env): { flows: FlowEntry[]; shadowed: FlowEntry[] } {
	const byName = new Map<string, FlowEntry>();
	const shadowed: FlowEntry[] = [];
	for (const { dir, source, chainsOnly } of flowDirs(cwd, scope, env)) {
		for (const file of markdownFiles(dir)) {
			if (chainsOnly && !file.endsWith(".chain.md")) continue;
			const entry = { name: flowNameOf(file), file, source };
			const previous = byName.get(entry.name);
			if (previous) shadowed.push(previous);
			byName.set(entry.name, entry);
		}
	}
	return { flows: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), shadowed };
}

/** A flow by name or by path; a miss names the nearest flows. */
export function findFlow(
	nameOrPath: string,
	cwd: string,
	scope: Scope = {},
	env: NodeJS.ProcessEnv = process.env,
): { ok: true; value: FlowEntry } | { ok: false; error: string; nearest: string[] } {
	const looksLikePath = nameOrPath.includes("/") || nameOrPath.endsWith(".md");
	if (looksLikePath) {
		const file = resolve(cwd, nameOrPath);
		if (existsSync(file) && statSync(file).isFile()) return { ok: true, value: { name: flowNameOf(file), file, source: "project" } };
		return { ok: false, error: `no flow file at ${nameOrPath}`, nearest: [] };
	}
	const { flows } = listFlows(cwd, scope, env);
	const found = flows.find((f) => f.name === nameOrPath);
	if (found) return { ok: true, value: found };
	const names = flows.map((f) => f.name);
	const near = nearest(nameOrPath, names);
	const closest = near ? [near, ...byCloseness(nameOrPath, names, 3).filter((n) => n !== near)].slice(0, 3) : byCloseness(nameOrPath, names, 3);
	const hint = closest.length ? ` Nearest: ${closest.join(", ")}.` : " No flows are installed.";
	return { ok: false, error: `no flow named \`${nameOrPath}\`.${hint}`, nearest: closest };
}
