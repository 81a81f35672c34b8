/**
 * A real run folder for report tests: a flow run on the scripted model through `startRun`, failed at its
 * last node, then resumed so the folder holds two lives. The flow has what every part of the report draws:
 * a map at concurrency 2 (parallel lanes), a loop, an ask, a failure under `on-fail: continue`, a handoff
 * document, a budget warning and an output holding `<script>`.
 */
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { resolveModels, scriptedAsk } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { runsHome, startRun } from "../../src/runs/index.ts";
import { resumeScripted, scriptedHost } from "../helpers/host.ts";
import type { TempProject } from "../helpers/project.ts";

/** The flow: every kind of visit the report shows, in a few seconds of scripted turns. */
export const FLOW = `---
name: survey
description: Plan, survey two places at once, ask, review until approved, then answer.
input: string
nodes:
  - id: plan
    agent: planner
    reads: [input]
    output: { tasks: [string] }
  - id: work
    map-from: plan.output.tasks
    max: 3
    concurrency: 2
    join: any
    do:
      - id: act
        agent: scout
        reads: [item]
        on-fail: continue
        handoff: { watermark: 0.3 }
  - id: pick
    ask: "Ship <left> or right?"
    options: [left, right]
  - id: polish
    loop: review.output.ok
    max: 3
    do:
      - id: review
        agent: reviewer
        output: { ok: boolean }
  - id: wrap
    agent: synthesiser
    reads: [input, work]
---

## plan

Cut the request under \`input\` into tasks.

## act

Survey what the task under \`item\` names.

## review

Review the work.

## wrap

Answer from the reports under \`work\`.
`;

/**
 * Life 1: the scouts run two at a time, one fails (absorbed), one reads a long file past its watermark and
 * hands off, and \`wrap\` fails. The first scout answers late, so the second starts while it still runs
 * however slowly the machine opens sessions (the timeline's two lanes need the overlap).
 */
const SCRIPT_1 = `latencyMs: 40
contextWindow: 8000
turns:
  plan:
    - call: submit
      args: { tasks: [north, south, east] }
  "work[1]/act":
    - delay: 300
      say: "north looks fine <script>alert('north')</script>"
  "work[2]/act":
    - fail: the south scout lost its way
  "work[3]/act":
    - call: read
      args: { path: roads.txt }
    - call: finish
      args: { status: done, summary: "East surveyed; <b>two</b> roads found.", decisions: ["Walked, not drove: the roads are closed"], artifacts: [east.md], next_task: Map the roads. }
  review:
    - call: submit
      args: { ok: false }
  "polish#2/review":
    - call: submit
      args: { ok: true }
  wrap:
    - fail: the provider is down
`;

/** Life 2: only \`wrap\` runs again, slowly enough that its heading is wide enough to read on the timeline. */
const SCRIPT_2 = `latencyMs: 300
turns:
  wrap:
    - say: "north is fine, south is unknown, east has two roads"
`;

/** Where the run folder is, and the flow it ran. */
export interface Fixture {
	runDir: string;
	flow: CheckedFlow;
}

/** Runs the fixture flow in `project`: a failed first life and a resumed second one. */
export async function surveyRun(project: TempProject): Promise<Fixture> {
	const file = project.write(".pi/flows/survey.md", FLOW);
	// Long enough to cross the act node's watermark, where `finish` is offered.
	project.write("roads.txt", `${"road ".repeat(1800)}\n`);
	const sources = { project: true };
	const checked = checkFlowText(
		FLOW,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value) throw new Error(`the fixture flow does not check: ${JSON.stringify(checked.faults)}`);
	const flow = checked.value;
	const first = await scriptedHost(project, SCRIPT_1);
	const models = resolveModels(flow, first.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join("\n"));
	const started = await startRun(flow, "Survey the <land>", {
		runsHome: runsHome(project.cwd),
		spawn: first.spawn,
		models: models.models,
		cwd: project.cwd,
		scripts: new Map(),
		somebodyThere: true,
		retryBackoffMs: 0,
		ask: scriptedAsk({ pick: "left" }),
		// A low warning threshold, so the first life's turns cross it without stopping the run.
		budget: { turns: 40, warnAt: 0.1 },
		// Sealed with the project's person's key, as `pi-flows run` there would: `pi-flows report` then trusts it.
		keyDir: project.agentDir,
	});
	if ("refused" in started) throw new Error(started.refused);
	if (started.result.ok) throw new Error("the fixture's first life was meant to fail");
	const { out: resumed } = await resumeScripted(project, started.runDir, SCRIPT_2, {
		ask: scriptedAsk({}),
		keyDir: project.agentDir,
	});
	if ("refused" in resumed) throw new Error(resumed.refused);
	if (!resumed.result.ok) throw new Error(`the fixture's second life failed: ${resumed.result.error}`);
	return { runDir: started.runDir, flow };
}
