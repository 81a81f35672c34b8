/**
 * Issue 20's newcomer flows and an in-process `pi-flows`: what a person at a terminal reads, without a
 * subprocess per call.
 */
import { main } from "../../src/cli/main.ts";
import type { TempProject } from "../helpers/project.ts";

/** A triage flow: a typed scout, a choice, a coder/reviewer loop with a verdict ledger. */
export const TRIAGE = `---
name: triage
description: Scout an issue; a serious one is fixed under review, a small one gets a note.
input: string
nodes:
  - id: scout
    agent: scout
    reads: [input]
    output: { severity: high | low, files: [string] }
  - id: route
    choice:
      - when: scout.output.severity == "high"
        do:
          - id: fix
            loop: review.output.approved
            max: 3
            ledger: fix
            do:
              - id: code
                agent: coder
                reads: [input, scout, fix.ledger]
              - id: review
                agent: reviewer
                verdict: fix
                reads: [input, code]
    default:
      - id: note
        agent: worker
        reads: [input, scout]
---

## scout
Read the issue under \`input\` and say how serious it is and which files it touches.

## code
Fix the issue under \`input\` in the files under \`scout\`; answer the open obligations.

## review
Judge the fix under \`code\`.

## note
Write a short note on the issue.
`;

/** A per-file review: a typed planner, a map over its list at concurrency 3, a synthesiser. */
export const REVIEW = `---
name: review
description: A planner lists the files to review; each is reviewed; a synthesiser sums up.
input: string
nodes:
  - id: plan
    agent: planner
    reads: [input]
    output: { files: [string] }
  - id: each
    map-from: plan.output.files
    max: 5
    concurrency: 3
    do:
      - id: look
        agent: reviewer
        reads: [item]
  - id: sum
    agent: synthesiser
    reads: [input, each]
---

## plan
List the files the request under \`input\` touches.

## look
Review the file under \`item\`.

## sum
Sum up the reviews under \`each\`.
`;

/** Runs `pi-flows ...` in-process; what it printed, by stream. */
export async function cli(project: TempProject, ...argv: string[]) {
	const out: string[] = [];
	const err: string[] = [];
	const code = await main(argv, {
		cwd: project.cwd,
		env: project.env,
		agentDir: project.agentDir,
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
	});
	return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}
