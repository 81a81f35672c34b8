/**
 * The project every LSP test opens: a project agent `helper`, and a flow whose nodes cover what the server
 * answers about (a typed planner output with an enum, a later reader, a choice comparing the enum).
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { type LspClient, startClient } from "./client.ts";

/** A flow that checks. Line numbers in the tests follow from this text, so it is spelt out in full. */
export const FLOW = `---
name: mine
description: d
input: string
nodes:
  - id: plan
    agent: planner
    reads: [input]
    output: { tasks: [string], status: ready | blocked }
  - id: work
    agent: helper
    reads: [input, plan.output.tasks]
  - id: gate
    choice:
      - when: plan.output.status == "ready"
        do:
          - id: finish
            agent: helper
            reads: [work]
    default: []
---

## plan
Plan it.

## work
Do it.

## finish
Finish.
`;

/** A temp project with the `helper` agent; `file` is where the flow goes. */
export function flowProject(): TempProject & { file: string } {
	const project = tempProject();
	project.write(
		".pi/agents/helper.md",
		agentFile("helper", "read, grep").replace("helper for tests", "Helps with small tasks."),
	);
	return { ...project, file: project.write(".pi/flows/mine.md", FLOW) };
}

/** The project and the server of one test file, set once its `beforeAll` has run. */
export interface FileServer {
	readonly project: TempProject & { file: string };
	readonly client: LspClient;
}

/**
 * One server per test file, as an editor keeps one per workspace: started before the file's tests, its
 * documents closed after each test so none leaks into the next, and stopped at the end, where a clean
 * shutdown (exit 0) is part of what is tested.
 */
export function serverPerFile(): FileServer {
	const s = {} as { project: TempProject & { file: string }; client: LspClient };
	beforeAll(async () => {
		s.project = flowProject();
		s.client = await startClient(s.project);
	});
	afterEach(() => s.client.closeAll());
	afterAll(async () => {
		expect(await s.client.stop()).toBe(0);
		s.project.cleanup();
	});
	return s;
}
