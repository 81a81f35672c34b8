/**
 * The shipped `interview` and `review-loop` flows, end to end on the scripted model: questions answered,
 * then "that's enough", or an interviewer with nothing left to ask, or nobody there; a worker and a
 * reviewer whose obligations stay open until the reviewer closes them, and the loop's cap.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AskCard, scriptedAsk } from "../../src/engine/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { outputAt, paths } from "../engine/world-helpers.ts";
import { fixture, runShipped } from "./shipped.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("interview", () => {
	it("asks until the person says enough, on one interviewer session, then writes the brief", async () => {
		const log: AskCard[] = [];
		const ask = scriptedAsk({ "ask#1/gate/answer": "SQLite", "ask#2/gate/answer": { kind: "enough" } }, log);
		const ran = await runShipped(project, "interview", fixture("interview.script.yaml"), "A notes app", { ask });
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			"ask#1/ask_next",
			"ask#1/gate/answer",
			"ask#1/gate",
			"ask#2/ask_next",
			"ask#2/gate/answer",
			"ask#2/gate",
			"ask",
			"brief",
		]);
		// The cards: the interviewer's question, open, with the flow's "enough" label.
		expect(log.map((c) => [c.visit, c.question, c.open, c.enough])).toEqual([
			["ask#1/gate/answer", "Where should the notes be kept?", true, "That's enough, write the brief"],
			["ask#2/gate/answer", "Who may read them?", true, "That's enough, write the brief"],
		]);
		expect(log[0]).toMatchObject({
			header: "Storage",
			options: [{ label: "SQLite", description: "one file" }, { label: "Postgres" }],
		});
		expect(outputAt(ran.result, "ask#1/gate")).toEqual({
			case: "1",
			output: { answered: true, answer: "SQLite", custom: false },
		});
		expect(outputAt(ran.result, "ask#2/gate")).toEqual({ case: "1", output: { answered: false } });
		expect(outputAt(ran.result, "ask")).toMatchObject({ converged: true, stop: "until", iterations: 2 });
		// The brief: text, from the same session as the questions.
		expect(ran.result.output).toMatch(
			/^Brief: keep notes in SQLite\. Task was: Write the brief for the request under `input`/,
		);
		expect(ran.result.output).toContain("## input\n\nA notes app");
		expect(ran.spawns).toBe(1);
		expect(ran.open).toBe(0);
	});

	it("hands each question the last answer, custom ones included, and stops when nothing is left to ask", async () => {
		const ask = scriptedAsk({
			"ask#1/gate/answer": "SQLite",
			"ask#2/gate/answer": { kind: "answer", value: "my team and my boss", custom: true },
		});
		const ran = await runShipped(project, "interview", fixture("interview.script.yaml"), "A notes app", { ask });
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			"ask#1/ask_next",
			"ask#1/gate/answer",
			"ask#1/gate",
			"ask#2/ask_next",
			"ask#2/gate/answer",
			"ask#2/gate",
			"ask#3/ask_next",
			"ask#3/gate",
			"ask",
			"brief",
		]);
		expect(outputAt(ran.result, "ask#2/gate")).toEqual({
			case: "1",
			output: { answered: true, answer: "my team and my boss", custom: true },
		});
		expect(outputAt(ran.result, "ask#3/ask_next")).toEqual({});
		expect(outputAt(ran.result, "ask#3/gate")).toEqual({ case: "default" });
		expect(outputAt(ran.result, "ask")).toMatchObject({ converged: true, iterations: 3 });
		const turnEnds = ran.events.filter((e) => e.type === "turn_end").length;
		expect(turnEnds).toBe(4);
		expect(ran.spawns).toBe(1);
		expect(ran.open).toBe(0);
	});

	it("retries a question turn that ended without `submit`, on the same shared session", async () => {
		const script = `turns:
  "ask#1/ask_next":
    - call: submit
      args: { question: { question: Which?, options: [{ label: a }, { label: b }] } }
  "ask#2/ask_next":
    - say: "Nothing more to ask, I think."
    - call: submit
      args: {}
  brief:
    - say: "{{task}}"
`;
		const ran = await runShipped(project, "interview", script, "x", { ask: scriptedAsk({ answer: "b" }) });
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			"ask#1/ask_next",
			"ask#1/gate/answer",
			"ask#1/gate",
			"ask#2/ask_next",
			"ask#2/gate",
			"ask",
			"brief",
		]);
		expect(ran.events.filter((e) => e.type === "turn_start" && e.path === "ask#2/ask_next")).toHaveLength(2);
		expect(outputAt(ran.result, "ask#1/gate")).toEqual({
			case: "1",
			output: { answered: true, answer: "b", custom: false },
		});
		expect(ran.spawns).toBe(1);
		expect(ran.open).toBe(0);
	});

	it("writes the brief at once when nobody is there: `enough` answers for them", async () => {
		const ran = await runShipped(project, "interview", fixture("interview.script.yaml"), "A notes app");
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["ask#1/ask_next", "ask#1/gate/answer", "ask#1/gate", "ask", "brief"]);
		expect(outputAt(ran.result, "ask#1/gate/answer")).toEqual({ answered: false });
		expect(ran.result.output).toMatch(/^Brief: /);
	});
});

describe("review-loop", () => {
	it("keeps obligations open until the reviewer closes them; approval needs nothing left open", async () => {
		const ran = await runShipped(
			project,
			"review-loop",
			fixture("review-loop.script.yaml"),
			"Write notes.txt listing three fruits",
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual([
			"pair#1/work",
			"pair#1/review",
			"pair#2/work",
			"pair#2/review",
			"pair#3/work",
			"pair#3/review",
			"pair",
		]);
		// The ledger's effects, as the verdicts read: round 2 approves but o2 is still open, so it is not.
		expect(["pair#1/review", "pair#2/review", "pair#3/review"].map((p) => outputAt(ran.result, p))).toEqual([
			{ approved: false, remarks: "two problems" },
			{ approved: false },
			{ approved: true, remarks: "good" },
		]);
		expect(ran.result.output).toMatchObject({ converged: true, stop: "until", iterations: 3 });
		// The worker is handed the open obligations and the last verdict; it really wrote the file.
		const work2 = outputAt(ran.result, "pair#2/work") as string;
		expect(work2).toContain('"id": "o1"');
		expect(work2).toContain('"text": "list three fruits, not two"');
		expect(work2).toContain('"id": "o2"');
		expect(work2).toContain('"remarks": "two problems"');
		const work3 = outputAt(ran.result, "pair#3/work") as string;
		expect(work3).not.toContain('"id": "o1"');
		expect(work3).toContain('"id": "o2"');
		const { readFileSync } = await import("node:fs");
		expect(readFileSync(`${project.cwd}/notes.txt`, "utf8")).toBe("apple\npear\nplum\n");
		// The worker keeps one session for the loop (`memory: pair`); each review is a fresh one.
		expect(ran.spawns).toBe(4);
		expect(ran.open).toBe(0);
	});

	it("fails `unconverged` at its cap of four rounds", async () => {
		const script = `turns:
  work:
    - say: did it
  review:
    - call: verdict
      args: { approved: false, remarks: not yet }
`;
		const ran = await runShipped(project, "review-loop", script, "x");
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "unconverged",
			failedAt: "pair",
			error: "pair: unconverged: reached `max: 4` without its condition",
		});
		expect(paths(ran.result)).toHaveLength(9);
		expect(paths(ran.result).at(-2)).toBe("pair#4/review");
		expect(ran.open).toBe(0);
	});

	it("retries a review that forgot its verdict, and ignores a close of an obligation it did not raise", async () => {
		const script = `turns:
  "pair#1/work":
    - say: first try
  "pair#1/review":
    - say: looks fine to me
    - call: verdict
      args: { approved: false, raised: [add a title] }
  "pair#2/work":
    - say: added a title
  "pair#2/review":
    - call: verdict
      args: { approved: true, resolved: [{ id: o1, how: addressed }, { id: o7, how: withdrawn }] }
`;
		const ran = await runShipped(project, "review-loop", script, "x");
		expect(ran.result.ok).toBe(true);
		expect(ran.events.filter((e) => e.type === "turn_start" && e.path === "pair#1/review")).toHaveLength(2);
		expect(outputAt(ran.result, "pair#2/review")).toEqual({ approved: true });
		expect(ran.result.output).toMatchObject({ converged: true, iterations: 2 });
	});
});
