/**
 * Where flows are found: the package's `flows/`, the user's `<agentDir>/flows/`, and (only when asked)
 * the project's nearest `.pi/flows/`; a later source wins a name. A name is a file name without `.md`.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import {
	definitionDirs,
	markdownFiles,
	markdownFilesDeep,
	nearestProjectDir,
	type Sources,
	type Source,
} from "../agents/index.ts";
import { missHint } from "../faults/index.ts";
import { PROJECT_TRUST, pathTrust, untrustedPath } from "../trust/index.ts";

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
function flowDirs(
	cwd: string,
	scope: Sources,
	env: NodeJS.ProcessEnv,
): { dir: string; source: Source; chainsOnly: boolean }[] {
	const agents = definitionDirs("agents", cwd, scope, env);
	const flows = definitionDirs("flows", cwd, scope, env);
	// A project may keep chains without any `.pi/flows`: its `.pi/chains` (or its agents folder) is a source too.
	if ((scope.project ?? false) && !flows.some((f) => f.source === "project")) {
		const root = [nearestProjectDir(cwd, "chains"), nearestProjectDir(cwd, "agents")].find((d) => d !== undefined);
		if (root) flows.push({ dir: join(dirname(root), "flows"), source: "project" });
	}
	return flows.flatMap(({ dir, source }) => {
		const root = dirname(dir);
		const beside = agents
			.filter((a) => a.source === source && dirname(a.dir) === root)
			.map((a) => ({ dir: a.dir, source, chainsOnly: true }));
		return [{ dir: join(root, "chains"), source, chainsOnly: true }, ...beside, { dir, source, chainsOnly: false }];
	});
}

/** Every flow the scope can see, the winning file per name, sorted by name. */
export function listFlows(
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
): { flows: FlowEntry[]; shadowed: FlowEntry[] } {
	const byName = new Map<string, FlowEntry>();
	const shadowed: FlowEntry[] = [];
	for (const { dir, source, chainsOnly } of flowDirs(cwd, scope, env)) {
		// pi-subagents reads `chains/**` (and chains beside its agents, `agents/**`); a flows folder is flat.
		for (const file of chainsOnly ? markdownFilesDeep(dir) : markdownFiles(dir)) {
			if (chainsOnly && !file.endsWith(".chain.md")) continue;
			const entry = { name: flowNameOf(file), file, source };
			const previous = byName.get(entry.name);
			if (previous) shadowed.push(previous);
			byName.set(entry.name, entry);
		}
	}
	return { flows: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), shadowed };
}

/**
 * The project's flows a scope does not read (no `project: true`): every command names them the same way
 * ("skipped, read only when trusted") instead of acting as if they were not there. Undefined when there
 * are none or the scope reads them.
 */
export function unreadProjectFlows(cwd: string, scope: Sources = {}): { dir: string; flows: FlowEntry[] } | undefined {
	if (scope.project) return undefined;
	const dir = nearestProjectDir(cwd, "flows");
	const flows = dir
		? markdownFiles(dir).map((file) => ({ name: basename(file, ".md"), file, source: "project" as const }))
		: [];
	return dir && flows.length ? { dir, flows: flows.sort((a, b) => a.name.localeCompare(b.name)) } : undefined;
}

/** How a command reads project flows and refuses an untrusted one: the trust rule's own words (src/trust). */
export { PROJECT_TRUST, untrustedPath };

/** A flow by name or by path; a miss names the nearest flows, or says the name is an unread project flow. */
export function findFlow(
	nameOrPath: string,
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
): { ok: true; value: FlowEntry } | { ok: false; error: string; nearest: string[] } {
	const looksLikePath = nameOrPath.includes("/") || nameOrPath.endsWith(".md");
	if (looksLikePath) {
		const file = resolve(cwd, nameOrPath);
		if (existsSync(file) && statSync(file).isFile()) {
			// One trust rule: a repository file named by path is project content, as `.pi/flows/<name>` is,
			// and a file of another repository (or worktree of another) is never this project's to trust.
			const trust = pathTrust(file, { cwd, trusted: scope.project ?? false, env, shown: nameOrPath });
			if (!trust.ok) return { ok: false, error: trust.refusal, nearest: [] };
			return { ok: true, value: { name: flowNameOf(file), file, source: "project" } };
		}
		return { ok: false, error: `no flow file at ${nameOrPath}`, nearest: [] };
	}
	const { flows } = listFlows(cwd, scope, env);
	const found = flows.find((f) => f.name === nameOrPath);
	if (found) return { ok: true, value: found };
	const unread = unreadProjectFlows(cwd, scope)?.flows.find((f) => f.name === nameOrPath);
	if (unread)
		return {
			ok: false,
			error: `\`${nameOrPath}\` is a project flow (${relative(cwd, unread.file)}) and was not read: ${PROJECT_TRUST}.`,
			nearest: [],
		};
	const names = flows.map((f) => f.name);
	const hint = missHint(nameOrPath, names, { what: "flows", where: "`pi-flows flows` (or `/flows` in pi) lists them" });
	return { ok: false, error: `no flow named \`${nameOrPath}\`.${hint.text}`, nearest: hint.near ? [hint.near] : [] };
}
