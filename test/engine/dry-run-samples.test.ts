/**
 * Dry runs answer a typed turn with the one sample generator (`sampleValue`): every optional field filled
 * in, so a dry run walks each reader of an optional field, as docs/runs.md promises.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { cli } from "../helpers/newcomer.ts";

const FLOW = `---
name: triage
description: a typed look, then a step that reads its optional fields
input: string
nodes:
  - id: look
    agent: scout
    output: { status: approved | rejected, notes?: string, cost?: number, tags?: [string], more?: { why?: string } }
  - id: say
    agent: reviewer
    reads: [look.output.notes, look.output.more.why]
  - id: pick
    agent: scout
    output: high | low
---

## look

Look at {{input}}.

## say

Say what the notes mean.

## pick

Pick one.
`;

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write(".pi/flows/triage.md", FLOW);
});
afterEach(() => project.cleanup());

describe("a dry run of a node with optional output fields", () => {
	it("fills every optional field, nested ones too (pi-flows run --dry-run --json)", async () => {
		const r = await cli(project, "run", "triage", "go", "--project", "--dry-run", "--json");
		expect(r.stderr).toContain("(dry run)");
		expect(r.code).toBe(0);
		const result = JSON.parse(r.stdout) as { visits: { path: string; output?: unknown }[] };
		const look = result.visits.find((v) => v.path === "look");
		expect(look?.output).toEqual({
			status: "approved",
			notes: "sample",
			cost: 1,
			tags: ["sample"],
			more: { why: "sample" },
		});
		// A type that is not an object travels as `{ value }` through submit; the sample still arrives bare.
		expect(result.visits.find((v) => v.path === "pick")?.output).toBe("high");
	});
});
