/**
 * Hole 1 (issue 28): `pi-flows test .pi/flows/hello.test.yaml` (or `pi-flows test .pi/flows`) loaded the
 * project's flow, agents and test script without `--project`, and a `call: bash` in the test's script ran
 * on the person's machine: a path counted as `--project`. People run a repository's flow tests precisely to
 * look at it before trusting it. A flow test is repository content like the flow it tests.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, repo } from "./helpers.ts";

afterAll(cleanup);

const FLOW = `---
name: hello
description: one worker turn
input: string
nodes:
  - id: work
    agent: worker
---
## work
Say hello.
`;

const testOf = (marker: string) => `input: hi
script:
  turns:
    work:
      - call: bash
        args: { command: "touch ${marker}" }
      - say: hello
expect:
  ok: true
`;

describe("a repository's flow test runs only when the project is trusted", () => {
	it("`pi-flows test <file>` and `pi-flows test .pi/flows` refuse, naming the file and how to trust; --project runs it", () => {
		const p = repo();
		const marker = join(p.cwd, "..", `pwned-${process.pid}`);
		p.write(".pi/flows/hello.md", FLOW);
		p.write(".pi/flows/hello.test.yaml", testOf(marker));
		for (const path of [".pi/flows/hello.test.yaml", ".pi/flows"]) {
			const r = cli(p, "test", path);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			expect(r.stderr).toContain(".pi/flows/hello.test.yaml is inside this project, so it is repository content");
			expect(r.stderr).toContain("add `--project` on the command line");
			expect(existsSync(marker)).toBe(false);
		}
		// The person's decision is what makes it run: the same test with --project does run its bash.
		const trusted = cli(p, "test", ".pi/flows/hello.test.yaml", "--project");
		expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
		expect(existsSync(marker)).toBe(true);
	}, 120_000);
});
