import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("choice", () => {
	const flow = flowOf(
		"gate",
		`  - id: judge
    agent: reviewer
    output: { verdict: good | bad, score: number }
  - id: gate
    choice:
      - name: great
        when: judge.output.verdict == "good" && judge.output.score * 2 >= 18
        do:
          - id: praise
            agent: synthesiser
      - when: judge.output.verdict == "good"
        do:
          - id: ok_note
            agent: synthesiser
    default: []
`,
		{ judge: "Judge.", praise: "Praise.", ok_note: "Note." },
	);
	it("runs the first case that holds, and names it in the output", async () => {
		const ran = await runInline(
			project,
			"gate",
			flow,
			`turns:\n  judge:\n    - call: submit\n      args: { verdict: good, score: 9 }\n  praise:\n    - say: bravo\n`,
		);
		expect(ran.result).toMatchObject({ ok: true, output: { case: "great", output: "bravo" } });
	});
	it("falls through to an unnamed case, then to an empty default", async () => {
		const second = await runInline(
			project,
			"gate",
			flow,
			`turns:\n  judge:\n    - call: submit\n      args: { verdict: good, score: 3 }\n  ok_note:\n    - say: fine\n`,
		);
		expect(second.result.output).toEqual({ case: "2", output: "fine" });
		const none = await runInline(
			project,
			"gate",
			flow,
			`turns:\n  judge:\n    - call: submit\n      args: { verdict: bad, score: 3 }\n`,
		);
		expect(none.result.output).toEqual({ case: "default" });
	});
});

describe("loop", () => {
	const loop = (extra: string) =>
		flowOf(
			"pair",
			`  - id: pair
    loop: review.output.approved
    max: 3
${extra}    do:
      - id: code
        agent: coder
        reads: [pair.previous.review]
      - id: review
        agent: reviewer
        output: { approved: boolean, note: string }
`,
			{ code: "Code.", review: "Review." },
		);
	it("repeats until its condition holds, with previous and the stop reason", async () => {
		const ran = await runInline(
			project,
			"pair",
			loop(""),
			`turns:\n  code:\n    - say: "v1 {{task}}"\n  "pair#2/code":\n    - say: "v2 {{task}}"\n  "pair#1/review":\n    - call: submit\n      args: { approved: false, note: fix it }\n  "pair#2/review":\n    - call: submit\n      args: { approved: true, note: good }\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toMatchObject({ converged: true, stop: "until", iterations: 2 });
		const out = ran.result.output as { last: { code: { output: string } } };
		expect(out.last.code.output).toContain('"note": "fix it"');
		expect(ran.open).toBe(0);
	});
	it("fails `unconverged` at the cap, and keeps the value under on-fail: continue", async () => {
		const script = `turns:\n  code:\n    - say: try\n  review:\n    - call: submit\n      args: { approved: false, note: no }\n`;
		const capped = await runInline(project, "pair", loop(""), script);
		expect(capped.result).toMatchObject({ ok: false, errorKind: "unconverged", failedAt: "pair" });
		const kept = await runInline(project, "pair", loop("    on-fail: continue\n"), script);
		expect(kept.result).toMatchObject({ ok: true, output: { converged: false, stop: "cap", iterations: 3 } });
	});
	it("stops early on give-up, read only when the main condition is false", async () => {
		const ran = await runInline(
			project,
			"pair",
			loop('    give-up: review.output.note.contains("hopeless")\n'),
			`turns:\n  code:\n    - say: try\n  review:\n    - call: submit\n      args: { approved: false, note: hopeless }\n`,
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "unconverged" });
		expect(ran.events.filter((e) => e.type === "node_end" && e.node === "review")).toHaveLength(1);
	});
	it("carries `first`, then `next` after each iteration", async () => {
		const flow = flowOf(
			"carry",
			`  - id: seed
    agent: planner
    output: { items: [{ text: string }] }
  - id: round
    loop: size(work.output.left) == 0
    max: 3
    carry: { first: seed.output.items, next: work.output.left }
    do:
      - id: work
        agent: worker
        reads: [round.carry]
        output: { left: [{ text: string }] }
`,
			{ seed: "Seed.", work: "Work." },
		);
		const ran = await runInline(
			project,
			"carry",
			flow,
			`turns:\n  seed:\n    - call: submit\n      args: { items: [{ text: a }, { text: b }] }\n  "round#1/work":\n    - call: submit\n      args: { left: [{ text: b }] }\n  "round#2/work":\n    - call: submit\n      args: { left: [] }\n`,
		);
		expect(ran.result).toMatchObject({ ok: true, output: { converged: true, iterations: 2 } });
	});
});

describe("map and parallel", () => {
	const mapFlow = (concurrency: number, max = 4) =>
		flowOf(
			"fan",
			`  - id: plan
    agent: planner
    output: { tasks: [{ who: string, task: string }] }
  - id: work
    map-from: plan.output.tasks
    max: ${max}
    concurrency: ${concurrency}
    do:
      - id: act
        agent: scout
        reads: [item.task]
`,
			{ plan: "Plan.", act: "Act." },
		);
	const plan = (n: number) =>
		`  plan:\n    - call: submit\n      args: { tasks: [${Array.from({ length: n }, (_, i) => `{ who: w${i}, task: t${i + 1} }`).join(", ")}] }\n`;
	it("runs the body per item, results in item order whatever order they finish in", async () => {
		const ran = await runInline(
			project,
			"fan",
			mapFlow(3),
			`turns:\n${plan(3)}  "work[1]/act":\n    - delay: 60\n      say: first\n  "work[2]/act":\n    - delay: 5\n      say: second\n  "work[3]/act":\n    - say: third\n`,
		);
		expect(ran.result.ok).toBe(true);
		const out = ran.result.output as { item: { task: string }; ok: boolean; output: string }[];
		expect(out.map((e) => [e.item.task, e.output])).toEqual([
			["t1", "first"],
			["t2", "second"],
			["t3", "third"],
		]);
		expect(ran.open).toBe(0);
	});
	it("tells the producer the map's max: a longer list is refused at submit time, and the corrected one runs", async () => {
		const twice = `  plan:\n    - call: submit\n      args: { tasks: [{ who: a, task: t1 }, { who: b, task: t2 }, { who: c, task: t3 }] }\n    - call: submit\n      args: { tasks: [{ who: a, task: t1 }, { who: b, task: t2 }] }\n`;
		const ran = await runInline(project, "fan", mapFlow(2, 2), `turns:\n${twice}  act:\n    - say: x\n`);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.visits.find((v) => v.path === "plan")?.output).toEqual({
			tasks: [
				{ who: "a", task: "t1" },
				{ who: "b", task: "t2" },
			],
		});
		expect(ran.calls).toBe(4);
	});
	it("refuses a list longer than max before any item runs when no model produced it", async () => {
		const text = `---\nname: fan\ndescription: test flow\ninput: [string]\nnodes:\n  - id: work\n    map-from: input\n    max: 2\n    do:\n      - id: act\n        agent: scout\n        reads: [item]\n---\n\n## act\n\nAct.\n`;
		const ran = await runInline(project, "fan", text, "turns:\n  act:\n    - say: x\n", ["a", "b", "c"]);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "too-many", failedAt: "work" });
		expect(ran.calls).toBe(0);
	});
	it("keeps failed items in their slot and fails the block naming the first failing item", async () => {
		const ran = await runInline(
			project,
			"fan",
			mapFlow(1),
			`turns:\n${plan(2)}  "work[1]/act":\n    - fail: nope\n  "work[2]/act":\n    - say: fine\n`,
		);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "child",
			error: "work[1]/act: provider: nope",
			failedAt: "work[1]/act",
		});
	});
	it("joins a parallel on `any`, and cancels siblings under fail-fast", async () => {
		const par = (extra: string) =>
			flowOf(
				"par",
				`  - id: both\n    parallel:\n      a:\n        - id: x\n          agent: scout\n      b:\n        - id: y\n          agent: scout\n${extra}`,
				{ x: "X.", y: "Y." },
			);
		const any = await runInline(
			project,
			"par",
			par("    join: any\n"),
			`turns:\n  x:\n    - fail: down\n  y:\n    - say: up\n`,
		);
		expect(any.result.ok).toBe(true);
		expect(any.result.output).toMatchObject({ a: { ok: false }, b: { ok: true, output: "up" } });
		const fast = await runInline(
			project,
			"par",
			par("    fail-fast: true\n"),
			`turns:\n  x:\n    - fail: down\n  y:\n    - hang: true\n`,
		);
		expect(fast.result).toMatchObject({ ok: false, error: "both/a/x: provider: down" });
		const y = fast.result.visits.find((v) => v.node === "y");
		expect(y?.error).toMatch(/^cancelled/);
		expect(fast.open).toBe(0);
	});
});

describe("verdict and ledger", () => {
	const flow = flowOf(
		"rev",
		`  - id: pair
    loop: review.output.approved
    max: 3
    ledger: pair
    do:
      - id: code
        agent: coder
        reads: [pair.ledger]
      - id: review
        agent: reviewer
        verdict: pair
`,
		{ code: "Code.", review: "Review." },
	);
	it("keeps obligations until their raiser closes them; approval needs nothing left open", async () => {
		const ran = await runInline(
			project,
			"rev",
			flow,
			`turns:
  code:
    - say: "coding with {{task}}"
  "pair#1/review":
    - call: verdict
      args: { approved: false, remarks: two problems, raised: [add tests, fix the name] }
  "pair#2/review":
    - call: verdict
      args: { approved: true, resolved: [{ id: o1, how: addressed }] }
  "pair#3/review":
    - call: verdict
      args: { approved: true, resolved: [{ id: o2, how: addressed }, { id: o9, how: withdrawn }] }
`,
		);
		expect(ran.result).toMatchObject({ ok: true, output: { converged: true, iterations: 3 } });
		const reviews = ran.result.visits
			.filter((v) => v.node === "review")
			.map((v) => (v.output as { approved: boolean }).approved);
		expect(reviews).toEqual([false, false, true]);
		const code3 = ran.result.visits.find((v) => v.path === "pair#3/code")?.output as string;
		expect(code3).toContain('"id": "o2"');
		expect(code3).not.toContain('"id": "o1"');
	});
});
