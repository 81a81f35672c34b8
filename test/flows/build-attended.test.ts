/**
 * The shipped `build-attended` flow end to end on the scripted model: the interview and `build` run as
 * calls, the person is asked before anything is built, and the change is committed on the run's own
 * branch; answered "no" it ends ok with nothing built, and with nobody there it takes the defaults.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AskCard, prepareRun, scriptedAsk } from "../../src/engine/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { git, gitProject, outputAt, paths } from "../engine/world-helpers.ts";
import { agentsAt, fixture, runShipped, shippedFlow } from "./shipped.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	gitProject(project, {
		"README.md": "# Greeter\n",
		".pi/checks/test.sh": 'grep -qx hello greet.txt || { echo "FAIL: greet.txt must say hello"; exit 1; }\necho ok\n',
	});
});
afterEach(() => project.cleanup());

const interviewPaths = [
	"spec/ask#1/ask_next",
	"spec/ask#1/gate/answer",
	"spec/ask#1/gate",
	"spec/ask#2/ask_next",
	"spec/ask#2/gate/answer",
	"spec/ask#2/gate",
	"spec/ask",
	"spec/brief",
	"spec",
];

describe("build-attended", () => {
	it("interviews, asks before building, builds the brief, and commits on the run's branch", async () => {
		const log: AskCard[] = [];
		const ask = scriptedAsk(
			{ "spec/ask#1/gate/answer": "hello", "spec/ask#2/gate/answer": { kind: "enough" }, go: true },
			log,
		);
		const mainBefore = git(project.cwd, ["rev-parse", "main"]);
		const ran = await runShipped(project, "build-attended", fixture("build-attended.script.yaml"), "Add a greeting", {
			ask,
		});
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			...interviewPaths,
			"go",
			"gate/work/locate",
			"gate/work/plan",
			"gate/work/deliver#1/work[1]/pair#1/code",
			"gate/work/deliver#1/work[1]/pair#1/review",
			"gate/work/deliver#1/work[1]/pair",
			"gate/work/deliver#1/work",
			"gate/work/deliver#1/tests",
			"gate/work/deliver#1/audit",
			"gate/work/deliver",
			"gate/work/report",
			"gate/work",
			"gate/message",
			"gate/commit",
			"gate",
		]);
		// The person saw the brief above the yes/no.
		expect(log.map((c) => c.visit)).toEqual(["spec/ask#1/gate/answer", "spec/ask#2/gate/answer", "go"]);
		expect(log[2]).toMatchObject({
			question: "Build this?",
			confirm: true,
			reads: [{ address: "spec", text: "Brief: greet.txt says hello." }],
		});
		expect(outputAt(ran.result, "go")).toEqual({ yes: true });
		// Only `input` crosses a call: build's input is the brief.
		expect(outputAt(ran.result, "gate/work/locate")).toBe("Asked for: Brief: greet.txt says hello.");
		expect(outputAt(ran.result, "gate/work")).toBe("Delivered greet.txt; the check passed.");
		expect(agentsAt(ran, "gate/work/report")).toEqual(["synthesiser", "synthesiser"]);
		// The committer wrote from the caller's request (not the brief) and the diff.
		expect(outputAt(ran.result, "gate/message")).toBe(
			"Add greet.txt\n\nFor: Add a greeting\ndiff --git a/greet.txt b/greet.txt",
		);
		const out = ran.result.output as { case: string; output: { committed: boolean; sha: string; branch: string } };
		expect(out).toMatchObject({ case: "build", output: { committed: true, branch: "pi-flows/add-a-greeting" } });
		// On the run's branch, by pi-flows; the person's branch is untouched.
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("pi-flows/add-a-greeting");
		expect(git(project.cwd, ["rev-parse", "HEAD"])).toBe(out.output.sha);
		expect(git(project.cwd, ["rev-parse", "main"])).toBe(mainBefore);
		expect(git(project.cwd, ["log", "-1", "--format=%an|%s"])).toBe("pi-flows|Add greet.txt");
		expect(git(project.cwd, ["show", "--name-only", "--format=", "HEAD"])).toBe("greet.txt");
		expect(git(project.cwd, ["status", "--porcelain"])).toBe("");
		expect(git(project.cwd, ["branch", "--list", "pi-flows-copy/*"])).toBe("");
		expect(ran.open).toBe(0);
	});

	it("ends ok with nothing built when the person answers no", async () => {
		const ask = scriptedAsk({
			"spec/ask#1/gate/answer": "hi",
			"spec/ask#2/gate/answer": "no",
			"spec/ask#3/gate/answer": { kind: "enough" },
			go: false,
		});
		const script = fixture("build-attended.script.yaml").replace(
			'  "spec/brief":',
			'  "spec/ask#3/ask_next":\n    - call: submit\n      args: { question: { question: Sure?, options: [{ label: a }, { label: b }] } }\n  "spec/brief":',
		);
		const ran = await runShipped(project, "build-attended", script, "Add a greeting", { ask });
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toEqual({ case: "default" });
		expect(paths(ran.result).filter((p) => !p.startsWith("spec/"))).toEqual(["spec", "go", "gate"]);
		expect(outputAt(ran.result, "spec/ask")).toMatchObject({ converged: true, iterations: 3 });
		expect(outputAt(ran.result, "go")).toEqual({ yes: false });
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("main");
		expect(git(project.cwd, ["status", "--porcelain"])).toBe("");
		expect(git(project.cwd, ["branch", "--list", "pi-flows/*"])).toBe("");
		expect(ran.open).toBe(0);
	});

	it("runs unattended: the interview takes `enough`, the gate its default, and nothing is built", async () => {
		const stage = await prepareRun(shippedFlow(project, "build-attended"), { cwd: project.cwd, somebodyThere: false });
		expect(stage.ok).toBe(false);
		// Without a git port the run stage cannot see the repository that `build` needs…
		if (!stage.ok) expect(stage.faults.map((f) => f.code)).toEqual(["not-a-repository"]);
		// …with one, nothing about the unattended questions is refused: each has a default or `enough`.
		const ran = await runShipped(project, "build-attended", fixture("build-attended.script.yaml"), "Add a greeting");
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			"spec/ask#1/ask_next",
			"spec/ask#1/gate/answer",
			"spec/ask#1/gate",
			"spec/ask",
			"spec/brief",
			"spec",
			"go",
			"gate",
		]);
		expect(outputAt(ran.result, "spec/ask#1/gate/answer")).toEqual({ answered: false });
		expect(outputAt(ran.result, "go")).toEqual({ yes: false });
		expect(ran.result.output).toEqual({ case: "default" });
		expect(() => readFileSync(join(project.cwd, "greet.txt"))).toThrow();
		expect(git(project.cwd, ["branch", "--list", "pi-flows/*"])).toBe("");
		expect(ran.open).toBe(0);
	});
});
