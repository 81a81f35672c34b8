/**
 * Issue 29, measured on the committed peer corpus (test/fixtures/peers/, real files, unchanged):
 *
 * - every Claude Code agent of six collections that Claude Code itself loads (frontmatter with `name:` and
 *   `description:`: 633 of 675 files) is usable by its name from `.claude/agents` and from `~/.claude/agents`,
 *   each collection installed as its README says (a folder of its own); the issue's bar is 605 of 615;
 * - every pi-subagents chain that pi-subagents itself would run checks clean, and the three it would not run
 *   without an extension (a tool only that extension provides) are refused naming that tool;
 * - combo's five flows check clean with combo's agents, and its swarm agents (`tools: board`) are members of a
 *   pi-flows swarm; pi-crew's agents load.
 *
 * Before this issue: 0 of 633 from the installed folders (513 when copied flat into `.claude/agents`), and
 * 0 of the 8 chains.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowFile, checkFlowText } from "../../src/load/index.ts";
import {
	type AgentVerdict,
	type CorpusSource,
	corpusFile,
	corpusSources,
	installClaude,
	judgeClaude,
} from "../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

const sources = corpusSources();
const source = (repository: string) => sources.find((s) => s.repository === repository) as CorpusSource;
/** Every file of a repository, across its sources (combo's files each come at their own commit). */
const filesOf = (repository: string) =>
	sources
		.filter((s) => s.repository === repository)
		.flatMap((s) => s.paths.map((path) => ({ path, file: corpusFile(s, path) })));
const collections = sources.filter((s) => s.role === "claude-agents");

let project: TempProject;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
	project = tempProject();
	mkdirSync(join(project.cwd, ".git"));
	home = join(project.cwd, "..", "home");
	env = { ...project.env, HOME: home };
});
afterAll(() => project.cleanup());

/** Each collection alone in `<agents>/<its folder>`, judged; the folder is emptied after. */
function judgeAll(agents: string, scope: { project?: boolean }): Map<string, AgentVerdict[]> {
	const out = new Map<string, AgentVerdict[]>();
	for (const s of collections) {
		installClaude(s, agents);
		out.set(s.repository, judgeClaude(s, agents, project.cwd, scope, env));
		rmSync(agents, { recursive: true, force: true });
	}
	return out;
}

const summary = (verdicts: Map<string, AgentVerdict[]>) =>
	Object.fromEntries([...verdicts].map(([repo, v]) => [repo, `${v.filter((x) => x.usable).length}/${v.length}`]));

const EXPECTED = {
	"VoltAgent/awesome-claude-code-subagents": "158/158",
	"wshobson/agents": "202/202",
	"lst97/claude-code-sub-agents": "37/37",
	"0xfurai/claude-code-subagents": "136/136",
	"0motionguy/gICM": "82/82",
	"1215-Labs/claude-code-templates": "18/18",
};

describe("Claude Code's agents, installed as their READMEs say", () => {
	it("are usable by name from the project's .claude/agents: 633 of 633", () => {
		const verdicts = judgeAll(join(project.cwd, ".claude", "agents"), { project: true });
		const unusable = [...verdicts.values()].flat().filter((v) => !v.usable);
		expect(unusable).toEqual([]);
		expect(summary(verdicts)).toEqual(EXPECTED);
	});

	it("are usable by name from ~/.claude/agents: 633 of 633", () => {
		const verdicts = judgeAll(join(home, ".claude", "agents"), {});
		expect([...verdicts.values()].flat().filter((v) => !v.usable)).toEqual([]);
		expect(summary(verdicts)).toEqual(EXPECTED);
	});
});

/**
 * Each chain in the world pi-subagents would run it in: pi-subagents' bundled agents (nicobailon's, or
 * pi-vault's own for pi-vault's chains), the repository's own agents and skills, and, for pi-vault's chain
 * naming skills it does not ship, those skills (they come from a skill pack its user installs).
 */
const CHAINS: { repository: string; agents: string[]; skills?: string[] }[] = [
	{
		repository: "pi-vault/pi-subagents",
		agents: ["pi-vault/pi-subagents"],
		skills: ["brainstorming", "test-driven-development", "requesting-code-review", "ponytail-review"],
	},
	{ repository: "jhonatan98rios/metal-against-demons-bitecs-threejs-harness", agents: ["nicobailon/pi-subagents"] },
	{
		repository: "ZebulonRouseFrantzich/pi-zflow",
		agents: ["nicobailon/pi-subagents", "ZebulonRouseFrantzich/pi-zflow"],
	},
];

/**
 * The chains pi-subagents runs only with an extension installed, and the tool it gives: pi-flows' subagents
 * load no extensions, so these are refused naming it (`unknown-tool`), as pi-subagents refuses them
 * without it. context-builder (nicobailon's) uses pi-web-access's `web_search`; zflow's planner-frontier
 * its own extension's `zflow_write_plan_artifact`.
 */
const NEEDS_AN_EXTENSION: Record<string, string[]> = {
	"implement-and-review.chain.md": ["unknown-tool web_search"],
	"plan-and-implement.chain.md": ["unknown-tool zflow_write_plan_artifact", "unknown-tool web_search"],
	"scout-plan-validate.chain.md": ["unknown-tool zflow_write_plan_artifact"],
};

describe("pi-subagents' chains from users' repositories", () => {
	it("check clean when pi-subagents would run them; the others name the extension's tool they need", () => {
		const verdicts: Record<string, string[]> = {};
		for (const c of CHAINS) {
			const agentDir = join(project.cwd, "..", `agent-${basename(c.repository)}`);
			const world = { ...env, PI_CODING_AGENT_DIR: agentDir };
			for (const repo of c.agents) {
				const s = source(repo);
				for (const path of s.paths) {
					const to = /(^|\/)agents\/[^/]+\.md$/.test(path)
						? join(agentDir, "agents", basename(path))
						: /\/skills\//.test(path)
							? join(agentDir, "skills", path.split("/skills/")[1])
							: undefined;
					if (!to) continue;
					mkdirSync(dirname(to), { recursive: true });
					cpSync(corpusFile(s, path), to);
				}
			}
			for (const skill of c.skills ?? []) {
				mkdirSync(join(agentDir, "skills", skill), { recursive: true });
				writeFileSync(
					join(agentDir, "skills", skill, "SKILL.md"),
					`---\nname: ${skill}\ndescription: ${skill}\n---\nUse it.\n`,
				);
			}
			const s = source(c.repository);
			for (const path of s.paths.filter((p) => p.endsWith(".chain.md"))) {
				const file = join(agentDir, "chains", basename(path));
				mkdirSync(dirname(file), { recursive: true });
				cpSync(corpusFile(s, path), file);
				const judged = checkFlowFile(
					file,
					loadRoster(project.cwd, {}, world),
					catalogueOptions(project.cwd, {}, world),
				);
				// Each fault with the (first) tool it names.
				verdicts[basename(path)] = judged.faults.map(
					(f) => `${f.code} ${/lists `([^`]+)`/.exec(f.message)?.[1] ?? ""}`,
				);
			}
		}
		expect(verdicts).toEqual({
			"implement-plan-review.chain.md": [],
			"implement.chain.md": [],
			"parallel-review.chain.md": [],
			"plan-review-swarm.chain.md": [],
			...NEEDS_AN_EXTENSION,
		});
	});
});

describe("combo's agents and flows, pi-crew's agents", () => {
	it("combo's five flows check clean with combo's twelve agents", () => {
		const combo = filesOf("AI-for-dev/combo");
		for (const { path, file } of combo) {
			mkdirSync(join(project.agentDir, dirname(path)), { recursive: true });
			cpSync(file, join(project.agentDir, path));
		}
		const roster = loadRoster(project.cwd, {}, env);
		const options = catalogueOptions(project.cwd, {}, env);
		const agents = combo.filter((f) => f.path.startsWith("agents/")).map((f) => basename(f.path, ".md"));
		expect(agents.map((a) => roster.get(a)?.source)).toEqual(agents.map(() => "user"));
		const flows = combo.filter((f) => f.path.startsWith("flows/"));
		expect(flows).toHaveLength(5);
		for (const { path } of flows) {
			const judged = checkFlowFile(join(project.agentDir, path), roster, options);
			expect(judged.faults, path).toEqual([]);
		}
	});

	it("combo's swarm agents (`tools: board`) are members of a pi-flows swarm, which has its own board", () => {
		const roster = loadRoster(project.cwd, {}, env);
		const swarm = `---\nname: debate\ndescription: d\ninput: string\nnodes:\n  - id: argue\n    swarm: [{ agent: debater, count: 3 }, member]\n    rounds: 2\n    reads: [input]\n---\n\n## argue\nSettle the question under \`input\`.\n`;
		expect(checkFlowText(swarm, join(project.cwd, "debate.md"), roster).faults).toEqual([]);
		// Outside a swarm there is no board: the agent is refused, saying where one is.
		const alone = `---\nname: alone\ndescription: d\ninput: string\nnodes:\n  - id: argue\n    agent: debater\n    reads: [input]\n---\n\n## argue\nArgue.\n`;
		const faults = checkFlowText(alone, join(project.cwd, "alone.md"), roster).faults;
		expect(faults.map((f) => [f.code, f.hint])).toEqual([["unknown-tool", expect.stringMatching(/swarm/)]]);
	});

	it("pi-crew's eleven agents load (their own tools, `ask` or `delegate`, are refused where a node names one)", () => {
		const crew = filesOf("baphuongna/pi-crew");
		const dir = join(project.cwd, ".pi", "agents");
		mkdirSync(dir, { recursive: true });
		for (const { path, file } of crew) cpSync(file, join(dir, basename(path)));
		const roster = loadRoster(project.cwd, { project: true }, env);
		const names = crew.map((f) => basename(f.path, ".md"));
		expect(names).toHaveLength(11);
		expect(names.map((n) => roster.get(n)?.kind)).toEqual(names.map(() => "agent"));
		rmSync(dir, { recursive: true, force: true });
	});
});
