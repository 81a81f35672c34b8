/**
 * Issue 17, point 4: pi-subagents' `.chain.md` files run as chains, found where flows are found (and where
 * pi-subagents keeps them: `chains/` and beside the agents). The chain below is written in the format of
 * pi-subagents' `src/agents/chain-serializer.ts` (nicobailon/pi-subagents 36d49ce): frontmatter with name and
 * description, one `## <agent>` section per step, settings up to the first blank line, then the task.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { projectFiles } from "../../src/extension/trust.ts";
import { listFlows } from "../../src/load/index.ts";
import { catalogueOptions, checkFlowFile } from "../../src/load/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

const CHAIN = `---
name: scout-plan
description: Scout the code, then plan from what was found
---

## scout
output: context.md

Find the code relevant to {task}.

## planner
reads: context.md
model: scripted/scripted
progress: true

Write a plan for {task} from the scout's notes: {previous}

## reviewer

`;

let p: TempProject;
beforeEach(() => {
	p = tempProject();
});
afterEach(() => p.cleanup());

const cli = (...args: string[]) => {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: p.cwd,
		env: p.env,
		encoding: "utf8",
		timeout: 60_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe("a pi-subagents chain file", () => {
	it("is found in a project's `.pi/chains` with no `.pi/flows` beside it, and is listed for the trust question", () => {
		p.write(".pi/chains/only-chain.chain.md", CHAIN.replace("scout-plan", "only-chain"));
		expect(listFlows(p.cwd, { project: true }, p.env).flows.map((f) => f.name)).toContain("only-chain");
		expect(listFlows(p.cwd, {}, p.env).flows.map((f) => f.name)).not.toContain("only-chain");
		expect(projectFiles(p.cwd).map((f) => f.slice(f.indexOf(".pi/")))).toEqual([".pi/chains/only-chain.chain.md"]);
	});

	it("is found where flows are and where pi-subagents keeps chains, by the name before `.chain.md`", () => {
		p.write(".pi/flows/scout-plan.chain.md", CHAIN);
		p.write("~agent/chains/user-chain.chain.md", CHAIN.replace("scout-plan", "user-chain"));
		p.write("~agent/agents/beside.chain.md", CHAIN.replace("scout-plan", "beside"));
		const names = listFlows(p.cwd, { project: true }, p.env).flows.map((f) => f.name);
		expect(names).toEqual(expect.arrayContaining(["scout-plan", "user-chain", "beside"]));
		// ... and is not an agent.
		expect(loadRoster(p.cwd, {}, p.env).get("beside")).toBeUndefined();
	});

	it("checks as a chain of agent nodes: outputs read by name, {task} and {previous} read, an empty task reads the step before", () => {
		const file = p.write(".pi/flows/scout-plan.chain.md", CHAIN);
		const judged = checkFlowFile(
			file,
			loadRoster(p.cwd, { project: true }, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		expect(judged.faults).toEqual([]);
		const nodes = judged.value?.nodes.map((n) =>
			n.kind === "agent" ? [n.id.value, n.agent?.value, n.reads.map((r) => r.text), n.model?.value ?? null] : [],
		);
		expect(nodes).toEqual([
			["scout", "scout", ["input"], null],
			["planner", "planner", ["input", "scout"], "scripted/scripted"],
			["reviewer", "reviewer", ["planner"], null],
		]);
		expect(judged.value?.prompts.get("planner")).toBe(
			"Write a plan for the request under `input` from the scout's notes: the previous step's answer under `scout`",
		);
	});

	it("runs from `pi-flows run` on the scripted model, and plans", () => {
		p.write(".pi/flows/scout-plan.chain.md", CHAIN);
		p.write(
			"s.yaml",
			'turns:\n  scout:\n    - say: "found src/a.ts"\n  planner:\n    - say: "plan: edit a.ts"\n  reviewer:\n    - say: "looks right"\n',
		);
		const run = cli("run", "scout-plan", "add a flag", "--script", "s.yaml", "--project");
		expect(run.stderr).toContain("✓ planner · planner");
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe("looks right");
		const plan = cli("plan", "scout-plan", "--project");
		expect(plan.code).toBe(0);
		expect(plan.stdout).toContain("reviewer");
	}, 120_000);

	it("is one fault at its line, saying it is a pi-subagents chain and what to change, when a setting has no counterpart; a `reads:` no output names is a note", () => {
		const file = p.write(
			".pi/flows/typed.chain.md",
			CHAIN.replace("scout-plan", "typed").replace("output: context.md", "output: context.md\noutputSchema: ./s.json"),
		);
		const judged = checkFlowFile(
			file,
			loadRoster(p.cwd, { project: true }, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		expect(judged.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-format 8:1"]);
		expect(judged.faults[0].message).toMatch(/pi-subagents/);
		const dangling = p.write(
			".pi/flows/dangling.chain.md",
			CHAIN.replace("scout-plan", "dangling").replace("reads: context.md", "reads: nothing.md"),
		);
		const second = checkFlowFile(
			dangling,
			loadRoster(p.cwd, { project: true }, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		// pi-subagents runs it (it reads the file when an earlier step wrote one): a note, and every earlier step read.
		expect(second.faults).toEqual([]);
		expect(second.notes?.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-note 12:1"]);
	});

	it("places a checker's fault on the chain file's line: an unknown agent at its heading", () => {
		const file = p.write(".pi/flows/scout-plan.chain.md", CHAIN.replace("## reviewer", "## reviewr"));
		const judged = checkFlowFile(
			file,
			loadRoster(p.cwd, { project: true }, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		expect(judged.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["unknown-agent 18:1"]);
	});

	it("saved without `.chain.md`, or an agent file in a flows folder, is one fault naming the peer format", () => {
		const roster = loadRoster(p.cwd, { project: true }, p.env);
		const options = catalogueOptions(p.cwd, { project: true }, p.env);
		const chain = checkFlowFile(p.write(".pi/flows/scout-plan.md", CHAIN), roster, options);
		expect(chain.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-format 1:1"]);
		expect(chain.faults[0].hint).toMatch(/\.chain\.md/);
		const agent = checkFlowFile(
			p.write(".pi/flows/helper.md", "---\nname: helper\ndescription: d\ntools: Read, Grep\n---\nYou help.\n"),
			roster,
			options,
		);
		expect(agent.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["peer-format 1:1"]);
		expect(agent.faults[0].message).toMatch(/agent file/);
	});
});
