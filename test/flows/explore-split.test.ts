/**
 * The shipped `explore` and `split` flows, end to end on the scripted model: three scouts in a map (a
 * retry after a provider failure, a scout that fails for good and is kept), then a planner whose first
 * answer forgets `submit`, workers picked per task by `agent-from`, and a list over `max`.
 */
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { outputAt, paths } from "../engine/world-helpers.ts";
import { agentsAt, fixture, runShipped } from "./shipped.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("src/parse.ts", "export function parse(text: string) { return text.split(','); }\n");
	project.write("test/parse.test.ts", "it('splits on commas', () => expect(parse('a,b')).toEqual(['a', 'b']));\n");
	project.write("docs/guide.md", "# Guide\n");
});
afterEach(() => project.cleanup());

describe("explore", () => {
	it("runs three scouts, retries a provider failure, keeps a failed scout, and answers from the reports", async () => {
		const ran = await runShipped(project, "explore", fixture("explore.script.yaml"), "How is input parsed?");
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["look[1]/scout", "look[2]/scout", "look[3]/scout", "look", "answer"]);
		const look = outputAt(ran.result, "look") as {
			item: string;
			ok: boolean;
			output?: string;
			error?: { kind: string; message: string };
		}[];
		// The failed scout's entry says it failed (the map still ends ok: `on-fail: continue` kept it).
		expect(look.map((e) => e.ok)).toEqual([true, true, false]);
		expect(look.map((e) => e.item)).toEqual(["the implementation (the source code)", "the tests", "the documentation"]);
		expect(look[0].output).toBe("From src/parse.ts: export function parse(text: string) { return text.split(','); }");
		expect(look[1].output).toBe(
			"From test/parse.test.ts: it('splits on commas', () => expect(parse('a,b')).toEqual(['a', 'b']));",
		);
		expect(look[2].output).toBeUndefined();
		expect(look[2].error).toEqual({ kind: "provider", message: "still down" });
		// The synthesiser is handed the question, then the three entries, the failed one with its error.
		const answer = ran.result.output as string;
		expect(answer).toContain("## input\n\nHow is input parsed?");
		expect(answer).toContain("## look\n\n```json");
		expect(answer).toContain('"message": "still down"');
		expect(answer).toContain("From test/parse.test.ts");
		// Retries run on the same subagent: one session per scout and one for the answer.
		expect(ran.spawns).toBe(4);
		expect(ran.calls).toBe(8);
		expect(ran.open).toBe(0);
	});

	it("runs the demo script shipped beside the flow, in the package itself", async () => {
		const root = fileURLToPath(new URL("../../", import.meta.url));
		const { readFileSync } = await import("node:fs");
		const script = readFileSync(`${root}flows/explore.script.yaml`, "utf8");
		const ran = await runShipped({ ...project, cwd: root }, "explore", script, "What is pi-flows?");
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("pi-flows runs multi-agent work written down as Markdown flow files");
		expect(ran.result.output).toContain("From README.md: # pi-flows");
		expect(ran.open).toBe(0);
	});
});

describe("split", () => {
	const plan = (tasks: string) => `turns:
  plan:
    - say: I would split it into a scout task and a review.
    - call: submit
      args: { tasks: [${tasks}] }
  "work[1]/act":
    - say: "scouted: {{section:item.task}}"
  "work[2]/act":
    - delay: 150
      say: "reviewed: {{section:item.task}}"
  "work[3]/act":
    - delay: 450
      fail: no
    - fail: no again
  answer:
    - say: "{{section:work|lines:40}}"
`;

	it("retries a plan with no submit, runs each task as the agent it names, and answers from every report", async () => {
		const ran = await runShipped(
			project,
			"split",
			plan(
				"{ worker: scout, task: find the parser }, { worker: reviewer, task: judge the tests }, { worker: scout, task: find the docs }",
			),
			"Is the parser tested?",
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["plan", "work[1]/act", "work[2]/act", "work[3]/act", "work", "answer"]);
		expect(outputAt(ran.result, "plan")).toEqual({
			tasks: [
				{ worker: "scout", task: "find the parser" },
				{ worker: "reviewer", task: "judge the tests" },
				{ worker: "scout", task: "find the docs" },
			],
		});
		expect(agentsAt(ran, "plan")).toEqual(["planner", "planner"]);
		expect(agentsAt(ran, "work[1]/act")).toEqual(["scout"]);
		expect(agentsAt(ran, "work[2]/act")).toEqual(["reviewer"]);
		expect(agentsAt(ran, "work[3]/act")).toEqual(["scout", "scout"]);
		const work = outputAt(ran.result, "work") as { ok: boolean; output?: string; error?: { kind: string } }[];
		expect(work.map((e) => [e.ok, e.output ?? e.error?.kind])).toEqual([
			[true, "scouted: find the parser"],
			[true, "reviewed: judge the tests"],
			[false, "provider"],
		]);
		expect(ran.result.output).toContain('"output": "scouted: find the parser"');
		expect(ran.result.output).toContain('"message": "no again"');
		expect(ran.open).toBe(0);
	});

	it("tells the planner the map's max: a plan of more than four tasks is refused at submit time, before any worker runs", async () => {
		const five = Array.from({ length: 5 }, (_, i) => `{ worker: scout, task: t${i} }`).join(", ");
		const ran = await runShipped(project, "split", plan(five), "Too much");
		expect(ran.result).toMatchObject({ ok: false, failedAt: "plan" });
		expect(ran.result.error).toContain("the `submit` tool refused its arguments: tasks: expected at most 4 items");
		expect(paths(ran.result)).toEqual(["plan"]);
		expect(ran.open).toBe(0);
	});

	it("fails `schema` when the planner never submits, after its one retry", async () => {
		const ran = await runShipped(
			project,
			"split",
			`turns:\n  plan:\n    - say: here is a plan in prose\n    - say: still prose\n`,
			"x",
		);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "schema",
			failedAt: "plan",
			error: "plan: schema: the turn ended with no accepted `submit` call",
		});
		expect(ran.calls).toBe(2);
	});
});
