/**
 * Issue 29, points 2, 4, 7 and the readings behind the corpus figures, one real file each (from
 * test/fixtures/peers/, unchanged): Claude Code's agents go by `name:` and are read from subfolders, its
 * folders' non-agent files are skipped, a frontmatter strict YAML refuses is read as Claude Code reads it,
 * an agent naming no `tools:` gets its peer's default (said by `check` and `plan`), pi-subagents' packaged
 * names and tools, and the unknown-agent message names where it looked and what it skipped for trust.
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDef, loadRoster, parseAgentFile } from "../../src/agents/index.ts";
import { main } from "../../src/cli/main.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { CORPUS } from "../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

const corpus = (path: string) => readFileSync(join(CORPUS, path), "utf8");
const VOLT = "VoltAgent/awesome-claude-code-subagents/categories";
const WSHOBSON = "wshobson/agents/plugins";

let p: TempProject;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
	p = tempProject();
	mkdirSync(join(p.cwd, ".git"));
	env = { ...p.env, HOME: join(p.cwd, "..", "home") };
});
afterEach(() => p.cleanup());

/** Copies corpus files into the project (or, with a `~/` target, the home folder). */
function install(files: Record<string, string>): void {
	for (const [to, from] of Object.entries(files)) {
		const target = to.startsWith("~/") ? join(env.HOME as string, to.slice(2)) : join(p.cwd, to);
		mkdirSync(dirname(target), { recursive: true });
		cpSync(join(CORPUS, from), target);
	}
}

const oneNode = (agent: string) =>
	`---\nname: probe\ndescription: d\ninput: string\nnodes:\n  - id: a\n    agent: ${agent}\n    reads: [input]\n---\n\n## a\nDo the task under \`input\`.\n`;

describe("Claude Code's folders, read as Claude Code reads them", () => {
	it("key an agent by its `name:`, in subfolders too, and skip what is no agent", () => {
		install({
			"~/.claude/agents/lst97/development/electorn-pro.md":
				"lst97/claude-code-sub-agents/agents/development/electorn-pro.md",
			".claude/agents/wshobson/agent-orchestration/context-manager.md": `${WSHOBSON}/agent-orchestration/agents/context-manager.md`,
			".claude/agents/voltagent/README.md": `${VOLT}/01-core-development/README.md`,
		});
		const roster = loadRoster(p.cwd, { project: true }, env);
		// lst97's file is misspelt; Claude Code knows it as `electron-pro`.
		expect(roster.get("electron-pro")).toMatchObject({ kind: "agent", source: "user" });
		expect(roster.get("electorn-pro")).toBeUndefined();
		expect(roster.get("agent-orchestration-context-manager")).toMatchObject({ kind: "agent", source: "project" });
		// The collection's README has no frontmatter: Claude Code loads no agent from it, and it breaks none here.
		expect(roster.get("README")).toBeUndefined();
	});

	it("read a frontmatter strict YAML refuses (`description: … when: …`) as text, with a note", () => {
		const text = corpus(`${VOLT}/04-quality-security/gdpr-ccpa-compliance.md`);
		const a = parseAgentFile(text, "g.md", "project", "g", { peer: "claude-code" });
		expect(a).toMatchObject({ kind: "agent", name: "gdpr-ccpa-compliance" });
		expect((a as AgentDef).description).toMatch(/: /);
		expect((a as AgentDef).notes?.map((n) => [n.key, n.line])).toContainEqual(["frontmatter", 3]);
	});

	it("drop a tool pi lacks, Claude Code's or an MCP server's, with a note", () => {
		const text = corpus(`${VOLT}/04-quality-security/ui-ux-tester.md`);
		const a = parseAgentFile(text, "u.md", "project", "u", { peer: "claude-code" }) as AgentDef;
		expect(a.tools).toEqual(["read", "write", "edit", "bash", "find", "grep"]);
		expect(a.notes?.filter((n) => n.key === "tools").map((n) => n.message)).toEqual([
			expect.stringMatching(/`WebSearch`/),
			expect.stringMatching(/`chrome-mcp` is not a tool pi has/),
			expect.stringMatching(/`computer-use` is not a tool pi has/),
		]);
	});

	it("give an agent naming no `tools:` every tool, as Claude Code does, and say so in check and plan", async () => {
		install({
			".claude/agents/ui-visual-validator.md": `${WSHOBSON}/accessibility-compliance/agents/ui-visual-validator.md`,
		});
		const roster = loadRoster(p.cwd, { project: true }, env);
		expect(roster.get("ui-visual-validator")).toMatchObject({
			tools: ["read", "bash", "edit", "write", "grep", "find", "ls"],
			toolsFrom: "Claude Code",
		});
		const flow = p.write(".pi/flows/probe.md", oneNode("ui-visual-validator"));
		const judged = checkFlowText(
			oneNode("ui-visual-validator"),
			flow,
			roster,
			catalogueOptions(p.cwd, { project: true }, env),
		);
		expect(judged.faults).toEqual([]);
		expect(judged.notes?.map((n) => `${n.code} ${n.line}:${n.column}`)).toContain("peer-default-tools 7:12");
		const io = (out: string[]) => ({
			cwd: p.cwd,
			env,
			agentDir: p.agentDir,
			stdout: (l: string) => out.push(l),
			stderr: (l: string) => out.push(l),
		});
		const checked: string[] = [];
		expect(await main(["check", flow, "--project"], io(checked))).toBe(0);
		expect(checked.join("\n")).toMatch(
			/probe\.md:7:12: note: peer-default-tools: .*names no `tools:`, and Claude Code gives such an agent every tool/,
		);
		const planned: string[] = [];
		expect(await main(["plan", "probe", "--project"], io(planned))).toBe(0);
		expect(planned.join("\n")).toMatch(
			/○ a · agent ui-visual-validator .*tools read, bash, edit, write, grep, find, ls \(Claude Code's default: no `tools:`\)/,
		);
	});
});

describe("pi-subagents' agents, read as pi-subagents reads them", () => {
	it("name a packaged agent `<package>.<name>`, and note `intercom`, which has no counterpart", () => {
		const zflow = parseAgentFile(
			corpus("ZebulonRouseFrantzich/pi-zflow/packages/pi-zflow-agents/agents/verifier.md"),
			"verifier.md",
			"user",
			"verifier",
		);
		expect(zflow).toMatchObject({ kind: "agent", name: "zflow.verifier" });
		const planner = parseAgentFile(
			corpus("nicobailon/pi-subagents/agents/planner.md"),
			"planner.md",
			"user",
			"planner",
		);
		expect(planner).toMatchObject({ tools: ["read", "grep", "find", "ls"] });
		expect((planner as AgentDef).notes?.find((n) => n.key === "tools")?.message).toMatch(
			/`intercom` has no counterpart/,
		);
	});

	it("read `model: default` (pi-vault) and `model: false` (pi-crew) as no model of the agent's own", () => {
		for (const path of ["pi-vault/pi-subagents/agents/worker.md", "baphuongna/pi-crew/agents/executor.md"]) {
			const a = parseAgentFile(corpus(path), path, "user", "x");
			expect(a.kind, path).toBe("agent");
			expect(a).not.toHaveProperty("model");
		}
	});

	it("give a file with pi-subagents' keys and no `tools:` pi's default tools; combo's and ours stay read-only", () => {
		const piSubagents =
			"---\nname: helper\ndescription: d\nsystemPromptMode: replace\ndefaultReads: context.md\n---\nHelp.\n";
		expect(parseAgentFile(piSubagents, "h.md", "user", "helper")).toMatchObject({
			tools: ["read", "bash", "edit", "write"],
			toolsFrom: "pi-subagents",
		});
		const combo = "---\nname: helper\ndescription: d\nlifetime: task\n---\nHelp.\n";
		const ours = parseAgentFile(combo, "h.md", "user", "helper");
		expect(ours).toMatchObject({ tools: ["read", "grep", "find", "ls"] });
		expect(ours).not.toHaveProperty("toolsFrom");
	});
});

describe("an unknown agent's message", () => {
	it("names the folders read, Claude Code's among them, and the project's agent skipped for trust", () => {
		install({
			".claude/agents/lst97/development/electorn-pro.md":
				"lst97/claude-code-sub-agents/agents/development/electorn-pro.md",
		});
		p.write(".pi/agents/helper.md", "---\nname: helper\ndescription: d\n---\nHelp.\n");
		const roster = loadRoster(p.cwd, {}, env);
		const message = (agent: string) =>
			checkFlowText(oneNode(agent), join(p.agentDir, "probe.md"), roster).faults.map((f) => `${f.code}: ${f.message}`);
		expect(message("electron-pro")).toEqual([
			expect.stringMatching(
				/^unknown-agent: no agent `electron-pro`\..* The project's `\.claude\/agents\/lst97\/development\/electorn-pro\.md` defines `electron-pro`, but the project's agents \(`\.pi\/agents\/`, `\.claude\/agents\/`\) are read only when it is trusted: run with `--project`, or trust the project in pi\.$/,
			),
		]);
		expect(message("nobody-at-all")).toEqual([
			expect.stringMatching(
				/they are the agent files of `~\/\.claude\/agents\/`, the package's `agents\/`, .*The project's agents \(`\.pi\/agents\/`, `\.claude\/agents\/`\) were not read/,
			),
		]);
	});
});
