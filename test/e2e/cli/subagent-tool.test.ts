/**
 * Issue 29, point 4: an agent that lists `subagent` (combo's explorer) or Claude Code's `Task`
 * (1215-Labs' context-manager) gets the subagent tool on the command line, as it does inside pi: the model
 * calls it, a child turn runs, and the parent reads the child's answer. Before, only the extension handed
 * the tool over, and `pi-flows run` gave such an agent a tool list naming a tool pi did not have.
 * Both agent files are the peers' own (test/fixtures/peers/), run on the scripted model. A flow called as a
 * tool of `pi-flows mcp` (the official SDK's client over stdio) gets the same tool.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORPUS } from "../../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";

const FLOW = `---
name: delegates
description: two peers' agents that delegate
input: string
nodes:
  - id: explore
    agent: explorer
    reads: [input]
  - id: manage
    agent: context-manager
    reads: [explore]
---

## explore
Answer the question under \`input\`.

## manage
Say what \`explore\` found.
`;

const SCRIPT = `turns:
  explore:
    - call: subagent
      args: { agent: scout, task: find the parser }
    - say: "explorer heard: {{result}}"
  manage:
    - call: subagent
      args: { agent: scout, task: find the tests }
    - say: "manager heard: {{result}}"
  "*":
    - say: "SCOUT looked: {{task|lines:1}}"
    - say: "SCOUT looked: {{task|lines:1}}"
`;

let project: TempProject;
beforeAll(() => {
	project = tempProject();
	mkdirSync(join(project.cwd, ".git"));
	const copy = (from: string, to: string) => {
		mkdirSync(join(project.cwd, to, ".."), { recursive: true });
		cpSync(join(CORPUS, from), join(project.cwd, to));
	};
	copy("AI-for-dev/combo/agents/explorer.md", ".pi/agents/explorer.md");
	copy("1215-Labs/claude-code-templates/.claude/agents/context-manager.md", ".claude/agents/context-manager.md");
	project.write(".pi/flows/delegates.md", FLOW);
	project.write("s.yaml", SCRIPT);
});
afterAll(() => project.cleanup());

describe("pi-flows run", () => {
	it("hands the subagent tool to an agent listing `subagent` or Claude Code's `Task`", () => {
		const r = spawnSync(
			process.execPath,
			[cliBin(), "run", "delegates", "What reads flows?", "--script", "s.yaml", "--project"],
			{
				cwd: project.cwd,
				env: { ...project.env, HOME: join(project.cwd, "..", "home") },
				encoding: "utf8",
				timeout: 120_000,
			},
		);
		expect(r.stderr).toContain("✓ explore · explorer");
		expect(r.status).toBe(0);
		expect(r.stdout.trim()).toBe("manager heard: SCOUT looked: find the tests");
		// The explorer's child ran too: its answer is the one the explorer passed on.
		expect(r.stderr).not.toMatch(/not found|unknown tool/i);
	}, 120_000);
});

describe("pi-flows mcp", () => {
	it("hands the subagent tool to the agents of a flow called as a tool", async () => {
		const client = new Client({ name: "subagent-tool-test", version: "1.0.0" });
		await client.connect(
			new StdioClientTransport({
				command: process.execPath,
				args: [cliBin(), "mcp", "--project", "--script", "s.yaml"],
				cwd: project.cwd,
				env: { ...project.env, HOME: join(project.cwd, "..", "home") } as Record<string, string>,
				stderr: "pipe",
			}),
		);
		try {
			const r = await client.callTool({ name: "delegates", arguments: { input: "What reads flows?" } });
			expect(r.structuredContent).toMatchObject({
				status: "ok",
				answer: "manager heard: SCOUT looked: find the tests",
			});
		} finally {
			await client.close();
		}
	}, 120_000);
});
