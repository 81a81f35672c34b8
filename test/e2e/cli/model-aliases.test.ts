/**
 * Issue 29, point 1, where users stand: the `pi-flows` command as a subprocess, in a project whose
 * `.claude/agents` holds Claude Code agents as wshobson/agents ships them (`model: sonnet`, `opus`, `haiku`,
 * `fable`, `inherit`), for a person with only an Anthropic key, only an OpenRouter key, or only a Bedrock
 * profile. `plan` shows each agent's model on that person's provider; the README's chain runs end to end
 * against the provider server standing in for Anthropic and for OpenRouter (pi's own provider code, over
 * HTTP on 127.0.0.1), each request naming the model the alias resolved to. Before, `sonnet` went to Amazon
 * Bedrock for all three and the chain was refused: "no credentials for amazon-bedrock".
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ProviderServer, startProviderServer } from "../../../src/provider/index.ts";
import { CORPUS } from "../../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { PERSONS, type Person, personEnv } from "../../pi/persons.ts";

/** wshobson/agents files (367cb6a4) naming each alias, and the `name:` each goes by. */
const AGENTS = [
	["accessibility-compliance/agents/ui-visual-validator.md", "ui-visual-validator", "sonnet"],
	["agent-teams/agents/team-debugger.md", "team-debugger", "opus"],
	["c4-architecture/agents/c4-code.md", "c4-code", "haiku"],
	["agent-teams/agents/team-lead.md", "team-lead", "fable"],
	["agent-orchestration/agents/context-manager.md", "agent-orchestration-context-manager", "inherit"],
] as const;

const FLOW = `---
name: aliases
description: one node per Claude Code agent
input: string
nodes:
${AGENTS.map(([, name], i) => `  - id: n${i}\n    agent: ${name}\n    reads: [input]`).join("\n")}
---
${AGENTS.map((_, i) => `\n## n${i}\nDo the task under \`input\`.\n`).join("")}`;

const children: ChildProcess[] = [];
let project: TempProject;
beforeAll(() => {
	project = tempProject();
	mkdirSync(join(project.cwd, ".git"));
	for (const [path] of AGENTS) {
		const to = join(project.cwd, ".claude", "agents", "wshobson", path);
		mkdirSync(join(to, ".."), { recursive: true });
		cpSync(join(CORPUS, "wshobson", "agents", "plugins", path), to);
	}
	project.write(".pi/flows/aliases.md", FLOW);
});
afterEach(() => {
	for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(() => project.cleanup());

/** Runs the CLI without blocking this process's event loop (a provider server may live here). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd: project.cwd, env });
		children.push(child);
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

/**
 * The person's environment, with an agent dir of their own: their default model (for the agent that
 * inherits, a bare alias as a Claude Code user would pick) and, when given, a `models.json`.
 */
function envOf(person: Person, models?: unknown): NodeJS.ProcessEnv {
	const agentDir = join(project.cwd, "..", `agent-${person.provider}`);
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultModel: "sonnet" }));
	if (models) writeFileSync(join(agentDir, "models.json"), JSON.stringify(models));
	return personEnv(person, { ...project.env, HOME: join(project.cwd, "..", "home"), PI_CODING_AGENT_DIR: agentDir });
}

describe("pi-flows plan, for each person", () => {
	it("shows every Claude Code alias on the provider the person has a key for", async () => {
		// The three at once: each is its own process, and one is what a person runs.
		const outs = await Promise.all(PERSONS.map((p) => cli(["plan", "aliases", "--json", "--project"], envOf(p))));
		for (const [i, person] of PERSONS.entries()) {
			const out = outs[i];
			expect(out.stderr, person.who).toBe("");
			expect(out.code).toBe(0);
			const rows = (JSON.parse(out.stdout) as { rows: { row: string; model?: { resolved?: string } }[] }).rows;
			const resolved = rows.filter((r) => r.row === "node").map((r) => r.model?.resolved?.split("/")[0]);
			expect(resolved, person.who).toEqual(AGENTS.map(() => person.provider));
		}
	}, 90_000);
});

describe("the README's chain, run against the provider server standing in for the person's provider", () => {
	let server: ProviderServer;
	beforeAll(async () => {
		server = await startProviderServer({ script: () => ({ text: "It reads Markdown flow files." }) });
	});
	afterAll(() => server.close());

	it("runs on the person's provider, for only an Anthropic key and for only an OpenRouter key", async () => {
		// pi's way to route a built-in provider through a proxy: its `baseUrl` alone, models and auth unchanged.
		const cases = [
			{
				person: PERSONS[0],
				providers: { anthropic: { baseUrl: server.url } },
				models: [/^claude-opus/, /^claude-sonnet/],
			},
			{
				person: PERSONS[1],
				providers: { openrouter: { baseUrl: `${server.url}/v1` } },
				models: [/^anthropic\/claude-opus/, /^anthropic\/claude-sonnet/],
			},
		];
		const chain = ["chain", "@scout --model opus:high -> @reviewer", "--global-model", "sonnet", "--continue-on-error"];
		const outs = await Promise.all(
			cases.map((c) =>
				cli(
					[...chain, `What does this repository do? (${c.person.provider})`],
					envOf(c.person, { providers: c.providers }),
				),
			),
		);
		for (const [i, c] of cases.entries()) {
			expect(outs[i].stderr).not.toMatch(/no credentials/);
			expect(outs[i].code, outs[i].stderr).toBe(0);
			// Anthropic's route speaks Anthropic's messages API; OpenRouter's, OpenAI's chat completions.
			const api = c.person.provider === "anthropic" ? "anthropic" : "openai";
			const asked = server.requests.filter((r) => r.api === api).map((r) => r.model);
			expect(asked, c.person.who).toEqual([expect.stringMatching(c.models[0]), expect.stringMatching(c.models[1])]);
		}
	}, 120_000);
});
