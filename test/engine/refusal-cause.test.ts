/**
 * Issue 20, points 2 and 5: when a turn fails because an answer tool refused its arguments, the CLI line,
 * the run's error and the report say the tool's own words once, without the path repeated at every block;
 * a map's `max` is told to the producer, and the CLI offers a resume only when the resume would run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { answerOf } from "../../src/extension/launch/answer.ts";
import { foldLive, startLive } from "../../src/extension/live/fold.ts";
import { showLive, treeOf } from "../../src/extension/live/render.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { runInline } from "../helpers/run.ts";
import { cli, REVIEW, TRIAGE } from "../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write(".pi/flows/triage.md", TRIAGE);
	project.write(".pi/flows/review.md", REVIEW);
});
afterEach(() => project.cleanup());

const badVerdict = `turns:
  scout:
    - call: submit
      args: { severity: high, files: [src/calc.js] }
  code:
    - say: fixed
  "route/fix#1/review":
    - call: verdict
      args: { approved: false, raised: [add a test] }
  "route/fix#2/review":
    - call: verdict
      args: { approved: true, resolved: [{ id: o1, how: done }] }
`;

describe("a tool's refusal is the cause, said once", () => {
	it("names the verdict tool's own words on the CLI line, with no path repeated", async () => {
		project.write("s.yaml", badVerdict);
		const r = await cli(project, "run", "triage", "the sum is off by one", "--script", "s.yaml", "--project");
		expect(r.code).toBe(1);
		const line = r.stderr.split("\n").find((l) => l.startsWith("pi-flows: the run failed at")) ?? "";
		expect(line).toContain(
			'the `verdict` tool refused its arguments: resolved.0.how: expected one of ["addressed","withdrawn"]',
		);
		expect(line.startsWith("pi-flows: the run failed at route/fix#2/review: provider: ")).toBe(true);
		expect(line.match(/route\/fix#2\/review/g)?.length).toBe(2); // where, and the script's own words
		expect(r.stderr).not.toMatch(/child: [^\n]*child: /);
		// The live lines of the blocks it travelled through name it once too.
		const routeLine = r.stderr.split("\n").find((l) => l.startsWith("✗ route ·")) ?? "";
		expect(routeLine).toContain("child: route/fix#2/review: provider: the `verdict` tool refused its arguments");
		const folder = /\.pi\/runs\/\S+/.exec(r.stderr)?.[0] ?? "";
		const result = JSON.parse(readFileSync(join(project.cwd, folder, "result.json"), "utf8")) as { error: string };
		expect(result.error.startsWith("route/fix#2/review: provider: the `verdict` tool refused")).toBe(true);
		const report = await cli(project, "report", folder);
		expect(report.code).toBe(0);
		expect(readFileSync(join(project.cwd, folder, "report.html"), "utf8")).toContain(
			"the `verdict` tool refused its arguments",
		);
	});

	it("says the tool's words once in pi's live view and answer message", async () => {
		const ran = await runInline(project, "triage", TRIAGE, badVerdict);
		const answer = answerOf("triage", "the sum is off by one", { result: ran.result, runDir: ".pi/runs/x" });
		expect(answer.end).toMatch(
			/^failed at route\/fix#2\/review: provider: the `verdict` tool refused its arguments: resolved\.0\.how: expected one of \["addressed","withdrawn"\]/,
		);
		expect(answer.end).not.toContain("child:");
		const state = startLive("triage", 0);
		for (const e of ran.events) foldLive(state, e, 1);
		const checked = checkFlowText(
			TRIAGE,
			`${project.cwd}/.pi/flows/triage.md`,
			loadRoster(project.cwd, { project: true }, project.env),
		).value;
		if (!checked) throw new Error("the triage flow does not check");
		const frame = showLive(state, treeOf(checked), 2, { maxRows: 40 }).join("\n");
		expect(frame).toContain("the `verdict` tool refused its arguments");
		expect(frame).not.toMatch(/child: [^\n]*child: /);
	});

	it("says why a typed turn ended with no accepted submit", async () => {
		project.write(
			"s.yaml",
			"turns:\n  plan:\n    - call: submit\n      args: { value: [a.js] }\n    - say: done\n  look:\n    - say: ok\n  sum:\n    - say: ok\n",
		);
		const r = await cli(project, "run", "review", "go", "--script", "s.yaml", "--project");
		expect(r.code).toBe(1);
		expect(r.stderr).toContain(
			"the run failed at plan: schema: the turn ended with no accepted `submit` call: the `submit` tool refused its arguments: files: ",
		);
	});
});

describe("a map's max is told to the producer", () => {
	const seven = "[a, b, c, d, e, f, g]";
	it("refuses a longer list at submit time, and the corrected one runs", async () => {
		project.write(
			"s.yaml",
			`turns:\n  plan:\n    - call: submit\n      args: { files: ${seven} }\n    - call: submit\n      args: { files: [a, b] }\n  look:\n    - say: ok\n  sum:\n    - say: "{{section:each|lines:1}}"\n`,
		);
		const r = await cli(project, "run", "review", "go", "--script", "s.yaml", "--project");
		expect(r.code).toBe(0);
		const folder = /\.pi\/runs\/\S+/.exec(r.stderr)?.[0] ?? "";
		const transcript = readFileSync(join(project.cwd, folder, "transcripts", "planner-1.jsonl"), "utf8");
		expect(transcript).toContain('"maxItems":5');
		expect(transcript).toContain("files: expected at most 5 items");
	});

	it("never offers a resume the resume would refuse", async () => {
		const flow =
			"---\nname: review\ndescription: d\ninput: { files: [string] }\nnodes:\n  - id: each\n    map-from: input.files\n    max: 5\n    do:\n      - id: look\n        agent: reviewer\n        reads: [item]\n---\n\n## look\nReview it.\n";
		project.write(".pi/flows/review.md", flow);
		project.write("s.yaml", "turns:\n  look:\n    - say: ok\n");
		const r = await cli(
			project,
			"run",
			"review",
			JSON.stringify({ files: ["a", "b", "c", "d", "e", "f"] }),
			"--script",
			"s.yaml",
			"--project",
		);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain("too-many");
		expect(r.stderr).not.toContain("picks it up");
		expect(r.stderr).toContain("a resume would decide the same");
	});

	it("treats a flow's own decision nested in a block alike: not offered, and refused by resume", async () => {
		const flow =
			"---\nname: nested\ndescription: d\ninput: { files: [string] }\nnodes:\n  - id: outer\n    choice:\n      - when: size(input.files) > 0\n        do:\n          - id: each\n            map-from: input.files\n            max: 2\n            do:\n              - id: look\n                agent: reviewer\n                reads: [item]\n    default: []\n---\n\n## look\nReview it.\n";
		project.write(".pi/flows/nested.md", flow);
		project.write("s.yaml", "turns:\n  look:\n    - say: ok\n");
		const r = await cli(
			project,
			"run",
			"nested",
			JSON.stringify({ files: ["a", "b", "c"] }),
			"--script",
			"s.yaml",
			"--project",
		);
		expect(r.code).toBe(1);
		expect(r.stderr).toContain("the run failed at outer/each: too-many: the list has 3 items");
		expect(r.stderr).not.toContain("picks it up");
		const folder = /\.pi\/runs\/\S+/.exec(r.stderr)?.[0] ?? "";
		const resumed = await cli(project, "resume", folder);
		expect(resumed.code).toBe(2);
		expect(resumed.stderr).toContain("the run failed by the flow's own decision (too-many at outer/each)");
	});
});
