import { afterEach, describe, expect, it } from "vitest";
import { interview, parseQuestion } from "../../src/combinators/index.ts";
import { agent, cleanupReal, real } from "./helpers.ts";

afterEach(cleanupReal);
const interviewer = agent("interviewer");

describe("interview", () => {
	it("puts each question to the user, hands the answer back, and ends with the brief", async () => {
		const r = await real(
			'turns:\n  "interviewer#1":\n    - say: "QUESTION: Which files?"\n  "interviewer#2":\n    - say: "QUESTION: How fast?"\n  "interviewer#3":\n    - say: "BRIEF after {{task}}"\n',
		);
		const asked: string[] = [];
		const result = await interview({
			...r.options,
			agent: interviewer,
			input: "Speed up the tests",
			ask: async (q) => {
				asked.push(q);
				return q === "Which files?" ? "src/" : "twice";
			},
		});
		expect(asked).toEqual(["Which files?", "How fast?"]);
		expect(result.answers).toEqual([
			{ question: "Which files?", answer: "src/" },
			{ question: "How fast?", answer: "twice" },
		]);
		expect(result).toMatchObject({ ok: true, brief: "BRIEF after ANSWER: twice", output: "BRIEF after ANSWER: twice" });
		const ids = new Set(r.events.flatMap((e) => (e.type === "turn_start" ? [e.subagent] : [])));
		expect(ids.size).toBe(1);
		expect(r.host.open()).toBe(0);
	});

	it("stops asking at maxQuestions and tells the interviewer to write the brief", async () => {
		const r = await real(
			'turns:\n  interviewer:\n    - say: "QUESTION: more?"\n  "interviewer#3":\n    - say: "{{task}}"\n',
		);
		let asked = 0;
		const result = await interview({
			...r.options,
			agent: interviewer,
			input: "x",
			maxQuestions: 1,
			ask: async () => {
				asked++;
				return "yes";
			},
		});
		expect(asked).toBe(1);
		expect(result.brief).toBe("No more questions: you have asked 1. Write the brief now.");
		expect(result.steps).toHaveLength(3);
	});

	it("asks for the brief at once when the user gives no answer", async () => {
		const r = await real(
			'turns:\n  "interviewer#1":\n    - say: "QUESTION: which?"\n  "interviewer#2":\n    - say: "{{task}}"\n',
		);
		const result = await interview({ ...r.options, agent: interviewer, input: "x", ask: async () => undefined });
		expect(result.answers).toEqual([{ question: "which?" }]);
		expect(result.brief).toBe("The user gave no answer. Write the brief now with what you have.");
	});

	it("ends as aborted when the run is cancelled while the user is being asked", async () => {
		const r = await real('turns:\n  interviewer:\n    - say: "QUESTION: which?"\n');
		const controller = new AbortController();
		const result = await interview({
			...r.options,
			signal: controller.signal,
			agent: interviewer,
			input: "x",
			ask: () => {
				controller.abort();
				return new Promise(() => {});
			},
		});
		expect(result).toMatchObject({ ok: false, errorKind: "aborted", brief: "" });
		expect(r.host.open()).toBe(0);
	});

	it("reads questions written loosely", () => {
		expect(parseQuestion("Thanks.\n**Question:** Which one?")).toBe("Which one?");
		expect(parseQuestion("- question: why")).toBe("why");
		expect(parseQuestion("Here is the brief: no questions.")).toBeUndefined();
	});
});
