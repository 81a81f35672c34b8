import { afterEach, describe, expect, it } from "vitest";
import { orchestrate, parsePlan } from "../../src/combinators/index.ts";
import { agent, cleanupReal, fakeOptions, fakeSpawn, real } from "./helpers.ts";

afterEach(cleanupReal);
const planner = agent("planner");
const scout = agent("scout");
const reviewer = agent("reviewer");
const synthesiser = agent("synthesiser");

describe("parsePlan reduces every shape to the same plan", () => {
	const plan = [
		{ agent: "scout", task: "read a" },
		{ agent: "reviewer", task: "judge b" },
	];
	it.each([
		["a JSON array", '[{"agent":"scout","task":"read a"},{"agent":"reviewer","task":"judge b"}]'],
		[
			"objects on their own lines",
			'Here is the plan:\n{"agent": "scout", "task": "read a"}\n{"agent": "reviewer", "task": "judge b"}',
		],
		["bare objects separated by commas", '{"agent":"scout","task":"read a"},\n{"agent":"reviewer","task":"judge b"}'],
		[
			"a fenced block",
			'Plan:\n```json\n[\n {"agent":"scout","task":"read a"},\n {"agent":"reviewer","task":"judge b"}\n]\n```\nDone.',
		],
		["a fenced block of lines", '```\n{"agent":"scout","task":"read a"}\n{"agent":"reviewer","task":"judge b"}\n```'],
		["an object holding tasks", '{"tasks":[{"agent":"scout","task":"read a"},{"agent":"reviewer","task":"judge b"}]}'],
	])("%s", (_shape, text) => {
		expect(parsePlan(text, ["scout", "reviewer"]).tasks).toEqual(plan);
	});

	it("takes a lone object", () => {
		expect(parsePlan('{"agent":"scout","task":"read a"}', ["scout"]).tasks).toEqual([plan[0]]);
	});

	it("drops an unknown agent rather than remapping it, and keeps the reason", () => {
		const read = parsePlan('[{"agent":"scuot","task":"x"},{"agent":"Scout","task":"y"},{"agent":"scout"}]', [
			"scout",
			"reviewer",
		]);
		expect(read.tasks).toEqual([{ agent: "scout", task: "y" }]);
		expect(read.dropped.map((d) => d.reason)).toEqual([
			"unknown agent `scuot`",
			"not a task: an object with a non-empty `agent` and `task` is",
		]);
	});

	it("keeps braces inside strings from splitting a task", () => {
		expect(
			parsePlan('{"agent":"scout","task":"check {a} and [b]"}\n{"agent":"scout","task":"c"}', ["scout"]).tasks,
		).toHaveLength(2);
	});
});

const bareObjects =
	'{\\"agent\\": \\"scout\\", \\"task\\": \\"read the README\\"}\\n{\\"agent\\": \\"ghost\\", \\"task\\": \\"haunt\\"}\\n{\\"agent\\": \\"reviewer\\", \\"task\\": \\"judge it\\"}';

describe("orchestrate on real sessions", () => {
	it("runs the validated plan and, with reduceWith, reads as the synthesis", async () => {
		const r = await real(
			`turns:\n  planner:\n    - say: "${bareObjects}"\n  scout:\n    - say: scouted\n  reviewer:\n    - say: reviewed\n  synthesiser:\n    - say: "ANSWER"\n`,
		);
		const done = await orchestrate({
			...r.options,
			planner,
			workers: [scout, reviewer],
			input: "Explain usage",
			reduceWith: synthesiser,
			maxTasks: 3,
		});
		expect(done.plan).toEqual([
			{ agent: "scout", task: "read the README" },
			{ agent: "reviewer", task: "judge it" },
		]);
		expect(done.dropped.map((d) => d.reason)).toEqual(["unknown agent `ghost`"]);
		expect(done.results.map((x) => x.output)).toEqual(["scouted", "reviewed"]);
		expect(done).toMatchObject({ ok: true, agent: "synthesiser", output: "ANSWER" });
		expect(done.answer?.output).toBe("ANSWER");
		expect(done.steps.map((s) => s.agent).sort()).toEqual(["planner", "reviewer", "scout", "synthesiser"]);
		expect(r.host.open()).toBe(0);
	});

	it("reads as its planner without reduceWith, and fails if a worker failed", async () => {
		const r = await real(
			`turns:\n  planner:\n    - say: "${bareObjects}"\n  scout:\n    - fail: lost\n  reviewer:\n    - say: reviewed\n`,
		);
		const done = await orchestrate({ ...r.options, planner, workers: [scout, reviewer], input: "q" });
		expect(done.answer).toBeUndefined();
		expect(done).toMatchObject({ agent: "planner", ok: false, error: "lost" });
		expect(done.output).toContain("read the README");
	});
});

describe("orchestrate validates the plan before any worker spawns", () => {
	it("fails a plan over maxTasks, with only the planner spawned", async () => {
		const fake = fakeSpawn(({ agent: who }) =>
			who === "planner"
				? { output: '[{"agent":"scout","task":"1"},{"agent":"scout","task":"2"},{"agent":"scout","task":"3"}]' }
				: {},
		);
		const done = await orchestrate({ ...fakeOptions(fake.spawn), planner, workers: [scout], input: "q", maxTasks: 2 });
		expect(done).toMatchObject({ ok: false, errorKind: "schema", error: "the plan has 3 tasks, more than maxTasks 2" });
		expect(fake.requests.map((q) => q.agent.name)).toEqual(["planner"]);
		expect(done.results).toEqual([]);
	});

	it("fails a plan with no task for a known worker", async () => {
		const fake = fakeSpawn(({ agent: who }) => (who === "planner" ? { output: "I would rather not plan." } : {}));
		const done = await orchestrate({ ...fakeOptions(fake.spawn), planner, workers: [scout], input: "q" });
		expect(done).toMatchObject({ ok: false, errorKind: "schema" });
		expect(fake.requests).toHaveLength(1);
	});

	it("defaults maxTasks to 8", async () => {
		const nine = JSON.stringify(Array.from({ length: 9 }, (_, i) => ({ agent: "scout", task: String(i) })));
		const fake = fakeSpawn(({ agent: who }) => (who === "planner" ? { output: nine } : {}));
		const done = await orchestrate({ ...fakeOptions(fake.spawn), planner, workers: [scout], input: "q" });
		expect(done.error).toBe("the plan has 9 tasks, more than maxTasks 8");
	});
});
