/**
 * The peer corpus (test/fixtures/peers/, gathered by scripts/gather-peers.ts): real agent files, chains and
 * flows from other tools' users, unchanged, with the repository, commit and path of each in manifest.json.
 * This module installs a Claude Code collection the way its README says (a folder of its own under
 * `.claude/agents` or `~/.claude/agents`) and measures which of its agents a flow can name, so the test and
 * the bench share one definition of "usable".
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { loadRoster, PACKAGE_ROOT } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";

export const CORPUS = join(PACKAGE_ROOT, "test", "fixtures", "peers");

/** One source of the manifest: a repository at a commit and the paths of it the corpus keeps. */
export interface CorpusSource {
	repository: string;
	commit: string;
	role: "claude-agents" | "pi-subagents" | "combo" | "pi-crew";
	via: "mirror" | "index";
	install?: string;
	root?: string;
	paths: string[];
}

export function corpusSources(): CorpusSource[] {
	return (JSON.parse(readFileSync(join(CORPUS, "manifest.json"), "utf8")) as { sources: CorpusSource[] }).sources;
}

/** The corpus file of a source's path. */
export const corpusFile = (source: CorpusSource, path: string) => join(CORPUS, source.repository, path);

/**
 * What Claude Code itself loads: a file whose frontmatter has `name:` and `description:`. Read line by line,
 * as a frontmatter block is, so a description YAML would refuse (an unquoted `: `) still counts: the figure
 * is about the peer's files, not about our reader.
 */
export function claudeLoads(text: string): { name: string } | undefined {
	const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
	if (!m) return undefined;
	const key = (k: string) => new RegExp(`^${k}:[ \\t]*(.*)$`, "m").exec(m[1])?.[1]?.trim();
	const name = key("name")?.replace(/^["']|["']$/g, "");
	// A template's `name: [agent-name]` is a YAML list, which no reader takes for a name.
	return name && !/^[[{]/.test(name) && key("description") ? { name } : undefined;
}

/**
 * Copies a Claude Code collection into `<agents>/<install>`, as its README installs it; `flat` copies every
 * file straight into `<agents>` instead (what a reader that does not recurse needs; a later file of the same
 * name overwrites an earlier one).
 */
export function installClaude(source: CorpusSource, agents: string, flat = false): void {
	for (const path of source.paths) {
		const below = source.root ? path.slice(source.root.length + 1) : path;
		const to = flat ? join(agents, basename(path)) : join(agents, source.install ?? "", below);
		mkdirSync(dirname(to), { recursive: true });
		cpSync(corpusFile(source, path), to);
	}
}

/** How one agent file fared: loaded by Claude Code, and usable by its name in a flow here (or why not). */
export interface AgentVerdict {
	path: string;
	name: string;
	usable: boolean;
	why?: string;
}

/**
 * Every agent of `source` Claude Code loads, judged the way a person meets it: a flow naming it by its
 * `name:` checks clean with the roster of `cwd` (the sources given), and the agent that name finds is one
 * of the collection's, installed under `installed` (not one of pi's own that shadows it). One flow names
 * them all, a node each, so the collection is one check; each node's faults are its agent's.
 */
export function judgeClaude(
	source: CorpusSource,
	installed: string,
	cwd: string,
	scope: { user?: boolean; project?: boolean },
	env: NodeJS.ProcessEnv,
): AgentVerdict[] {
	const roster = loadRoster(cwd, scope, env);
	const agents = source.paths.flatMap((path) => {
		const loads = claudeLoads(readFileSync(corpusFile(source, path), "utf8"));
		return loads ? [{ path, name: loads.name }] : [];
	});
	const nodes = agents.map((a, i) => `  - id: n${i}\n    agent: ${JSON.stringify(a.name)}\n    reads: [input]`);
	const sections = agents.map((_, i) => `## n${i}\nDo the task under \`input\`.\n`);
	const flow = `---\nname: probe\ndescription: names every agent\ninput: string\nnodes:\n${nodes.join("\n")}\n---\n\n${sections.join("\n")}`;
	const judged = checkFlowText(flow, join(cwd, "probe.md"), roster, catalogueOptions(cwd, scope, env));
	// A fault of no node (the probe itself) would be every agent's: none is then counted usable.
	const general = judged.faults.filter((f) => !/^n\d+$/.test(f.path.split(".")[0]));
	return agents.map((a, i) => {
		const faults = [...general, ...judged.faults.filter((f) => f.path.split(".")[0] === `n${i}`)].map(
			(f) => `${f.code}: ${f.message}`,
		);
		const found = roster.get(a.name);
		if (found && !found.file.startsWith(installed)) faults.push(`shadowed by ${found.file}`);
		const why = faults.join("; ");
		return { path: a.path, name: a.name, usable: faults.length === 0, ...(why ? { why } : {}) };
	});
}
