/**
 * Listing agent folders: `*.md` files of one folder, or of a folder and its subfolders, as Claude Code
 * (`.claude/agents/**`) and pi-subagents (`agents/**`, `chains/**`) read theirs.
 */
import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { definitionDirs, type Sources } from "./locations.ts";

/**
 * `*.md` files in `dir` and its subfolders, sorted, each folder's own files before its subfolders'. Hidden
 * folders and `node_modules` are not agents' places; a folder reached twice (a symlink loop) is read once.
 */
export function markdownFilesDeep(dir: string, seen: Set<string> = new Set()): string[] {
	let real: string;
	try {
		real = realpathSync(dir);
	} catch {
		return [];
	}
	if (seen.has(real)) return [];
	seen.add(real);
	const subfolders = listDir(dir)
		.filter((e) => !e.name.startsWith(".") && e.name !== "node_modules" && isFolder(join(dir, e.name), e))
		.map((e) => join(dir, e.name))
		.sort();
	return [...markdownFiles(dir), ...subfolders.flatMap((d) => markdownFilesDeep(d, seen))];
}

function listDir(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		// A folder that does not exist holds no definitions; that is the common case, not an error.
		return [];
	}
}

function isFolder(path: string, entry: Dirent): boolean {
	if (entry.isDirectory()) return true;
	if (!entry.isSymbolicLink()) return false;
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
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

/**
 * The agent names the folders of `scope` hold, each with its source, read cheaply (the `name:` and
 * `package:` lines of each file's head, no YAML), for lists that must cost nothing at pi's start: the
 * `subagent` tool's description, completions. The roster proper is `loadRoster`.
 */
export function agentNamesIn(
	cwd: string,
	scope: Sources,
	env: NodeJS.ProcessEnv = process.env,
): { name: string; source: string }[] {
	const byName = new Map<string, string>();
	for (const { dir, source } of definitionDirs("agents", cwd, scope, env)) {
		for (const file of markdownFilesDeep(dir).filter((f) => !f.endsWith(".chain.md"))) {
			const name = headName(file);
			if (name) byName.set(name, source);
		}
	}
	return [...byName].map(([name, source]) => ({ name, source })).sort((a, b) => a.name.localeCompare(b.name));
}

/** `package.name` or `name` from the frontmatter's lines, or undefined for a file without one. */
function headName(file: string): string | undefined {
	let head: string;
	try {
		head = readFileSync(file, "utf8").slice(0, 8192);
	} catch {
		return undefined;
	}
	const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(head)?.[1];
	if (!fm) return undefined;
	const line = (key: string) => new RegExp(`^${key}:[ \\t]*["']?([^"'\\r\\n]*?)["']?[ \\t]*$`, "m").exec(fm)?.[1];
	const name = line("name");
	if (!name || /^[[{]/.test(name)) return undefined;
	const pkg = line("package")?.toLowerCase().replace(/\s+/g, "-");
	return pkg ? `${pkg}.${name}` : name;
}
