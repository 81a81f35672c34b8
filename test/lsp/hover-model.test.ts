/**
 * Issue 29, point 1, in the editor: hovering an agent shows what its `model:` resolves to for the person
 * running the language server, by pi's resolver on a runtime refreshed as pi refreshes it. A Claude Code
 * agent (wshobson/agents' ui-visual-validator, as it ships, in `.claude/agents/`) says `model: sonnet`; with
 * only an Anthropic key the card says `sonnet → anthropic/…`, not a Bedrock model the person cannot use.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORPUS } from "../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { PERSONS, personEnv } from "../pi/persons.ts";
import { find, type LspClient, startClient } from "./client.ts";

const FLOW = `---
name: looks
description: d
input: string
nodes:
  - id: look
    agent: ui-visual-validator
    reads: [input]
---

## look
Look at the task under \`input\`.
`;

let project: TempProject & { file: string };
let client: LspClient;
beforeAll(async () => {
	const p = tempProject();
	mkdirSync(join(p.cwd, ".git"));
	const to = join(p.cwd, ".claude", "agents", "wshobson", "ui-visual-validator.md");
	mkdirSync(join(to, ".."), { recursive: true });
	cpSync(join(CORPUS, "wshobson/agents/plugins/accessibility-compliance/agents/ui-visual-validator.md"), to);
	// The server runs with only an Anthropic key (an editor reads a project's own agents: no trust needed).
	project = { ...p, env: personEnv(PERSONS[0], p.env), file: p.write(".pi/flows/looks.md", FLOW) };
	client = await startClient(project);
});
afterAll(async () => {
	expect(await client.stop()).toBe(0);
	project.cleanup();
});

describe("hover on an agent whose file names a model alias", () => {
	it("shows the model the alias resolves to for this person", async () => {
		const uri = client.open(project.file, FLOW);
		await client.diagnostics(uri, 1);
		const at = find(FLOW, "agent: ui-visual-validator", 9);
		const hover = await client.hover(uri, at.line, at.character);
		const value = (hover?.contents as { value: string } | undefined)?.value ?? "";
		expect(value).toMatch(/model: sonnet → anthropic\/claude-sonnet/);
	});
});
