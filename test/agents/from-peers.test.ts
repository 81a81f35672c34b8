/**
 * Issue 17, point 1: agent files from peers load as they are. combo's agents (lifetime, mustCallTool,
 * openInHerdr) and Claude Code's (capitalised comma-separated tools, model aliases, color, its own keys)
 * are agents here, their unknown keys kept and noted; `.claude/agents` folders join the roster below pi's.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster, parseAgentFile } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowFile } from "../../src/load/index.ts";
import { main } from "../../src/cli/main.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

const parse = (text: string) => parseAgentFile(text, "a.md", "user", "a");

/** combo's auditor as it ships (AI-for-dev/combo agents/auditor.md), body shortened. */
const COMBO_AUDITOR =
	"---\nname: auditor\ndescription: Reads the finished work as a whole\ntools: read, grep, find, ls\nlifetime: task\nmustCallTool: true\n---\n\nYou audit finished work.\n";
/** combo's coder with openInHerdr and concurrency, as its docs write them. */
const COMBO_CODER =
	"---\nname: coder\ndescription: Implements a change\ntools: read, grep, find, ls, edit, write\nlifetime: workflow\nopenInHerdr: true\nconcurrency: 3\n---\n\nYou implement changes.\n";
/** A Claude Code subagent in the shape its docs give. */
const CLAUDE =
	"---\nname: code-reviewer\ndescription: Expert code review specialist. Use proactively after writing code.\ntools: Read, Grep, Glob, Bash, WebFetch\nmodel: sonnet\ncolor: purple\npermissionMode: default\n---\n\nYou are a senior code reviewer.\n";

describe("an agent file from a peer", () => {
	it("keeps combo's keys and honours them", () => {
		expect(parse(COMBO_AUDITOR)).toMatchObject({
			kind: "agent",
			lifetime: "task",
			mustCallTool: true,
			tools: ["read", "grep", "find", "ls"],
		});
		const coder = parse(COMBO_CODER);
		expect(coder).toMatchObject({ kind: "agent", lifetime: "workflow", pane: true });
		expect(coder.kind === "agent" && coder.notes?.map((n) => [n.key, n.line])).toEqual([["concurrency", 7]]);
	});

	it("maps Claude Code's tools to pi's, drops one pi lacks with a note, and keeps its model alias and colour", () => {
		const a = parse(CLAUDE);
		expect(a).toMatchObject({
			kind: "agent",
			tools: ["read", "grep", "find", "bash"],
			model: "sonnet",
			color: "purple",
		});
		expect(a.kind === "agent" && a.notes?.map((n) => n.key)).toEqual(["permissionMode", "tools"]);
		expect(parse("---\nname: a\ndescription: d\nmodel: inherit\n---\nP\n")).not.toHaveProperty("model");
		expect(parse("---\nname: a\ndescription: d\ntools: Edit, MultiEdit, Bash(git:*)\n---\nP\n")).toMatchObject({
			tools: ["edit", "bash"],
		});
	});

	it("gives an agent naming no tools combo's read-only set, and one with an empty `tools:` none", () => {
		expect(parse("---\nname: a\ndescription: d\n---\nP\n")).toMatchObject({ tools: ["read", "grep", "find", "ls"] });
		expect(parse("---\nname: a\ndescription: d\ntools:\n---\nP\n")).toMatchObject({ tools: [] });
		expect(parse("---\nname: a\ndescription: d\ntools: Read, Write\ndisallowedTools: Write\n---\nP\n")).toMatchObject({
			tools: ["read"],
		});
	});

	it("notes a value it cannot use instead of breaking the agent", () => {
		const a = parse("---\nname: a\ndescription: d\nlifetime: forever\ncolour: red\n---\nP\n");
		expect(a.kind).toBe("agent");
		expect(a.kind === "agent" && a.notes?.map((n) => n.key).sort()).toEqual(["colour", "lifetime"]);
	});
});

describe("the roster reads Claude Code's folders below pi's", () => {
	let p: TempProject;
	let env: NodeJS.ProcessEnv;
	beforeEach(() => {
		p = tempProject();
		env = { ...p.env, HOME: `${p.cwd}/../home` };
	});
	afterEach(() => p.cleanup());

	it("~/.claude/agents with the user's scope, .claude/agents with the project's, never over a pi name", () => {
		p.write("../home/.claude/agents/code-reviewer.md", CLAUDE);
		p.write("../home/.claude/agents/scout.md", CLAUDE.replace("code-reviewer", "scout"));
		p.write(".claude/agents/helper.md", CLAUDE.replace("code-reviewer", "helper"));
		const user = loadRoster(p.cwd, {}, env);
		expect(user.get("code-reviewer")).toMatchObject({ kind: "agent", source: "user" });
		expect(user.get("helper")).toBeUndefined();
		expect(user.get("scout")).toMatchObject({ source: "shipped" });
		const project = loadRoster(p.cwd, { project: true }, env);
		expect(project.get("helper")).toMatchObject({ kind: "agent", source: "project" });
	});

	it("a flow naming such agents checks, and `check` prints their kept keys as notes, exit 0", async () => {
		p.write(".claude/agents/code-reviewer.md", CLAUDE);
		p.write(".pi/agents/coder.md", COMBO_CODER);
		const flow = p.write(
			".pi/flows/review.md",
			"---\nname: review\ndescription: d\ninput: string\nnodes:\n  - id: code\n    agent: coder\n    reads: [input]\n  - id: look\n    agent: code-reviewer\n    reads: [code]\n---\n\n## code\n\nDo it.\n\n## look\n\nLook.\n",
		);
		const judged = checkFlowFile(
			flow,
			loadRoster(p.cwd, { project: true }, env),
			catalogueOptions(p.cwd, { project: true }, env),
		);
		expect(judged.faults).toEqual([]);
		expect(judged.notes?.map((n) => `${n.code} ${n.line}:${n.column}`)).toEqual([
			"agent-keys 7:12",
			"agent-keys 10:12",
		]);
		const out: string[] = [];
		const err: string[] = [];
		const code = await main(["check", flow], {
			cwd: p.cwd,
			env,
			agentDir: p.agentDir,
			stdout: (l) => out.push(l),
			stderr: (l) => err.push(l),
		});
		expect(code).toBe(0);
		expect(err.join("\n")).toMatch(/review\.md:7:12: note: agent-keys: .*`concurrency`/);
	});
});

/**
 * combo's nine agents with the frontmatter keys and values they ship with (AI-for-dev/combo `agents/*.md`;
 * `mustCallTool` from 4e26d9e's auditor); descriptions and bodies are ours.
 */
const COMBO_AGENTS: Record<string, string> = {
	auditor: "tools: read, grep, find, ls\nlifetime: task\nmustCallTool: true",
	coder: "tools: read, grep, find, ls, edit, write\nlifetime: workflow",
	committer: "tools: read, grep, find, ls\nlifetime: task",
	interviewer: "tools: read, grep, find, ls\nlifetime: workflow",
	planner: "tools: read, grep, find, ls\nlifetime: task",
	reviewer: "tools: read, grep, find, ls\nlifetime: workflow",
	router: "tools: read, grep, find, ls\nlifetime: task",
	scout: "tools: read, grep, find, ls\nlifetime: task\nopenInHerdr: false",
	synthesiser: "tools: read, grep, find, ls\nlifetime: task",
};

describe("combo's flows with combo's agents as they ship", () => {
	let p: TempProject;
	beforeEach(() => {
		p = tempProject();
	});
	afterEach(() => p.cleanup());

	it("every one of the five checks with no fault, the agents in .pi/agents", () => {
		for (const [name, keys] of Object.entries(COMBO_AGENTS))
			p.write(
				`.pi/agents/${name}.md`,
				`---\nname: ${name}\ndescription: the ${name} of combo\n${keys}\n---\nYou are the ${name}.\n`,
			);
		const dir = join(PACKAGE_ROOT, "test", "fixtures", "combo");
		for (const f of readdirSync(dir).filter((x) => x.endsWith(".md")))
			p.write(`.pi/flows/${f}`, readFileSync(join(dir, f), "utf8"));
		const roster = loadRoster(p.cwd, { project: true }, p.env);
		expect(roster.get("coder")).toMatchObject({ source: "project", lifetime: "workflow" });
		for (const flow of ["explore", "split", "build", "build-attended", "interview"]) {
			const judged = checkFlowFile(
				join(p.cwd, ".pi", "flows", `${flow}.md`),
				roster,
				catalogueOptions(p.cwd, { project: true }, p.env),
			);
			expect(judged.faults, flow).toEqual([]);
		}
	});
});
