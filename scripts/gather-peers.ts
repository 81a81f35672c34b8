/**
 * Gathers the peer corpus (test/fixtures/peers/): agent files, chains and flows that other tools' users wrote,
 * copied byte for byte from git mirrors of their repositories, with a manifest naming the repository, commit
 * and path of every file. The corpus is data that pi-flows must read as the tool it was written for reads it
 * (test/agents/peer-corpus.test.ts holds the figures); this script is how it was made and how it is refreshed.
 *
 *   node scripts/gather-peers.ts /work/.mirror        # every source below, from <mirrors>/<owner>+<repo>/repo
 *
 * A source the mirrors do not hold at its commit is skipped with a line on stderr, so a partial refresh never
 * writes a manifest that names files it does not have. Files that only the search index holds (combo's later
 * agents and flows) are added by `extra` entries, each with the commit the index gave.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** One repository and the files of it the corpus keeps. */
interface Source {
	repository: string;
	commit: string;
	/** What the files are, for the tests: Claude Code agents, pi-subagents agents and chains, combo's, pi-crew's. */
	role: "claude-agents" | "pi-subagents" | "combo" | "pi-crew";
	/** Paths kept (the repository's own paths). */
	include: RegExp;
	/** Where the collection's README says to put it, relative to the agents folder (Claude Code's collections). */
	install?: string;
	/** The folder whose content is what gets installed (stripped from each path when installing). */
	root?: string;
}

const SOURCES: Source[] = [
	{
		repository: "VoltAgent/awesome-claude-code-subagents",
		commit: "c9e51ec0b3d43f5dcdd0b558a6cd28ba6ada97c1",
		role: "claude-agents",
		include: /^categories\/.+\.md$/,
		root: "categories",
		install: "voltagent",
	},
	{
		repository: "wshobson/agents",
		commit: "367cb6a4a182cf7e9b0a17c9429f7411ddd9cf35",
		role: "claude-agents",
		include: /^plugins\/[^/]+\/agents\/.+\.md$/,
		root: "plugins",
		install: "wshobson",
	},
	{
		repository: "lst97/claude-code-sub-agents",
		commit: "96f5a506793d1c2e4a66c3ec3ce63c2cd2667728",
		role: "claude-agents",
		include: /^agents\/.+\.md$/,
		root: "agents",
		install: "lst97",
	},
	{
		repository: "0xfurai/claude-code-subagents",
		commit: "3f0399d33498ef1c0ec2326eae0dbed567fc9c22",
		role: "claude-agents",
		include: /^agents\/.+\.md$/,
		root: "agents",
		install: "0xfurai",
	},
	{
		repository: "0motionguy/gICM",
		commit: "1550d0b406a8c6078e0d65585828fb4bda5ab1de",
		role: "claude-agents",
		include: /^\.claude\/agents\/.+\.md$/,
		root: ".claude/agents",
		install: "gicm",
	},
	{
		repository: "1215-Labs/claude-code-templates",
		commit: "14046b067ba6048df2759082fe42339e6ab197a3",
		role: "claude-agents",
		include: /^\.claude\/agents\/.+\.md$/,
		root: ".claude/agents",
		install: "1215-labs",
	},
	{
		// The version whose bundled roles include planner and context-builder, which saved chains name.
		repository: "nicobailon/pi-subagents",
		commit: "99325767e65061d356b5c8053151962759ca3ad5",
		role: "pi-subagents",
		include: /^agents\/.+\.md$/,
	},
	{
		repository: "pi-vault/pi-subagents",
		commit: "6f25a2ac461672c21f670fe064d8a4463ae8074c",
		role: "pi-subagents",
		include: /^(agents|chains)\/.+\.md$/,
	},
	{
		repository: "jhonatan98rios/metal-against-demons-bitecs-threejs-harness",
		commit: "ac7d75eccba93dcb6425a1cc7d9eba18ade47182",
		role: "pi-subagents",
		include: /^\.pi\/chains\/.+\.chain\.md$/,
	},
	{
		repository: "ZebulonRouseFrantzich/pi-zflow",
		commit: "916367bd1441fd6dac7caf82e7722276c93ee7b9",
		role: "pi-subagents",
		include: /^packages\/pi-zflow-agents\/(agents|chains|skills)\/.+\.md$/,
	},
	{
		repository: "baphuongna/pi-crew",
		commit: "b9cc44eafc66d13e70dc05511fe10afa536ff00a",
		role: "pi-crew",
		include: /^agents\/.+\.md$/,
	},
];

/** One source of the corpus as the manifest records it: the repository, its commit, and every path kept. */
export interface ManifestSource {
	repository: string;
	commit: string;
	role: Source["role"];
	/** How the files were had: a git mirror, or the search index's stored text at that commit. */
	via: "mirror" | "index";
	/** For a Claude Code collection: the folder (under an agents folder) its README installs it into. */
	install?: string;
	/** The repository folder whose content is installed there. */
	root?: string;
	/** The repository's own paths; each file is at test/fixtures/peers/<repository>/<path>. */
	paths: string[];
}

const HERE = join(import.meta.dirname, "..", "test", "fixtures", "peers");

function main(mirrors: string): void {
	const manifest = join(HERE, "manifest.json");
	const previous = existsSync(manifest)
		? (JSON.parse(readFileSync(manifest, "utf8")) as { sources: ManifestSource[] }).sources
		: [];
	const sources: ManifestSource[] = [];
	for (const source of SOURCES) {
		const repo = join(mirrors, source.repository.replace("/", "+"), "repo");
		const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 1 << 28 });
		try {
			git("cat-file", "-e", `${source.commit}^{commit}`);
		} catch {
			process.stderr.write(`skipped ${source.repository}: no mirror holds ${source.commit}\n`);
			sources.push(...previous.filter((s) => s.repository === source.repository && s.via === "mirror"));
			continue;
		}
		const paths = git("ls-tree", "-r", "--name-only", source.commit)
			.toString("utf8")
			.split("\n")
			.filter((p) => source.include.test(p));
		for (const path of paths) {
			const file = join(HERE, source.repository, path);
			mkdirSync(dirname(file), { recursive: true });
			// Bytes as committed: the corpus is the peers' files unchanged.
			writeFileSync(file, git("show", `${source.commit}:${path}`));
		}
		const { include: _, ...kept } = source;
		sources.push({ ...kept, via: "mirror", paths });
	}
	// Files only the index holds keep their entries (written from its stored text at that commit, unchanged).
	sources.push(...previous.filter((s) => s.via === "index"));
	writeFileSync(manifest, `${JSON.stringify({ sources }, null, "\t")}\n`);
	process.stdout.write(`${sources.reduce((n, s) => n + s.paths.length, 0)} files\n`);
}

main(process.argv[2] ?? "/work/.mirror");
