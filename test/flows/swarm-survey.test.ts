/**
 * The shipped `swarm-survey` flow end to end on the scripted model: a planner's list becomes the claims
 * of three scouts on a shared board, over two rounds; the synthesiser writes from the board.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { outputAt, paths } from "../engine/world-helpers.ts";
import { scriptableAddresses } from "../../src/language/index.ts";
import { checkScriptKeys, readScript } from "../../src/pi/index.ts";
import { fixture, runShipped, shippedFlow } from "./shipped.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("a.md", "Alpha: the overview.\n");
	project.write("b.md", "Beta.\n");
	project.write("c.md", "Gamma.\n");
});
afterEach(() => project.cleanup());

type Survey = {
	converged: boolean;
	rounds: number;
	posts: { member: string; text: string }[];
	held: string[];
	released: string[];
};

describe("swarm-survey", () => {
	// Regression (see test/engine/copies-stops.test.ts): swarm members once ignored the run's model, so
	// `pi-flows run swarm-survey --script …` failed unless pi's settings named a default model.
	it("runs on the run's model alone (`--script`), as every other shipped flow does", async () => {
		const ran = await runShipped(
			project,
			"swarm-survey",
			fixture("swarm-survey.script.yaml"),
			"Survey the markdown files",
			{ checkKeys: false },
		);
		expect(ran.result.ok).toBe(true);
	});

	// Regression: a swarm member's turn is labelled `<swarm>/<agent>[j]#n` (`survey/scout[1]#2`); the script
	// key check once knew only the swarm's own address and refused every per-member key.
	it("accepts per-member script keys for a swarm's members", () => {
		const read = readScript(fixture("swarm-survey.script.yaml"), "swarm-survey.script.yaml");
		if (!read.value) throw new Error("bad script");
		expect(
			checkScriptKeys(read.value, scriptableAddresses(shippedFlow(project, "swarm-survey"))).map((f) => f.path),
		).toEqual([]);
	});

	it("lists the files, lets three scouts claim and describe them on a board, and writes the survey", async () => {
		// pi's settings name the scripted model as the default, the only way swarm members find a model today.
		project.write("~agent/settings.json", JSON.stringify({ defaultProvider: "scripted", defaultModel: "scripted" }));
		const ran = await runShipped(
			project,
			"swarm-survey",
			fixture("swarm-survey.script.yaml"),
			"Survey the markdown files",
			{ checkKeys: false },
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["list", "survey", "answer"]);
		expect(outputAt(ran.result, "list")).toEqual({ files: ["a.md", "b.md", "c.md"] });
		const survey = outputAt(ran.result, "survey") as Survey;
		expect(survey.converged).toBe(false);
		expect(survey.rounds).toBe(2);
		expect(survey.held).toEqual(["a.md", "c.md"]);
		expect(survey.released).toEqual(["b.md", "a.md", "c.md"]);
		expect(survey.posts).toHaveLength(6);
		const [first, , , , second] = survey.posts;
		expect(first.text).toBe("CLAIM: a.md\na.md: Alpha: the overview.");
		// The loser of round 1 was told who holds a.md and what is free.
		expect(second.text).toMatch(/^You hold: nothing\.\nFree: c\.md\.\n- a\.md is held by scout#\d+\.\nCLAIM: c\.md/);
		expect(new Set(survey.posts.map((p) => p.member)).size).toBe(3);
		// The synthesiser is handed the survey asked for and the board.
		const answer = ran.result.output as string;
		expect(answer).toContain("## input\n\nSurvey the markdown files");
		expect(answer).toContain('"held": [\n');
		expect(answer).toContain("I will not finish b.md");
		// The planner, three members, the synthesiser; all closed.
		expect(ran.spawns).toBe(5);
		expect(ran.open).toBe(0);
	});
});
