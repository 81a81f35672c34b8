/**
 * Questions to the person: every card form answered through `scriptedAsk`, the unattended rules when
 * nobody is there, and the run stage refusing what cannot start here (unattended asks, check scripts
 * missing or outside the repository, git work outside a repository).
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AskCard, createGitPort, NOBODY, prepareRun, scriptedAsk } from "../../src/engine/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { checkedInline, gitProject, outputAt, paths } from "./world-helpers.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

/** Every card form in one flow: a choice card, a yes/no, free text, and an open card from a question an agent wrote. */
const cards = (defaults: { pick?: string; sure?: string; name?: string } = {}) =>
	flowOf(
		"cards",
		`  - id: pick
    ask: Which colour?
    options: [red, green, { label: blue, description: the sky }]
${defaults.pick ?? ""}  - id: sure
    ask: Sure?
    confirm: true
    reads: [pick]
${defaults.sure ?? ""}  - id: name
    ask: Your name?
${defaults.name ?? ""}  - id: plan
    agent: planner
    output: { question: Question }
  - id: more
    ask-from: plan.output.question
    enough: That's enough
  - id: sum
    agent: synthesiser
    reads: [pick, sure, name, more]
`,
		{ plan: "Ask one more thing.", sum: "Sum up." },
	);

const script = `turns:
  plan:
    - call: submit
      args: { question: { header: Size, question: How big?, options: [{ label: small }, { label: large, description: the big one }] } }
  sum:
    - say: "{{task}}"
`;

describe("asks through a port", () => {
	it("answers a choice card, a yes/no, free text and an open card with a custom answer", async () => {
		const log: AskCard[] = [];
		const ask = scriptedAsk(
			{ pick: "green", sure: true, name: "Ada", more: { kind: "answer", value: "medium", custom: true } },
			log,
		);
		const ran = await runInline(project, "cards", cards(), script, "the input", { ask });
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["pick", "sure", "name", "plan", "more", "sum"]);
		expect(outputAt(ran.result, "pick")).toEqual({ answered: true, answer: "green" });
		expect(outputAt(ran.result, "sure")).toEqual({ yes: true });
		expect(outputAt(ran.result, "name")).toBe("Ada");
		expect(outputAt(ran.result, "more")).toEqual({ answered: true, answer: "medium", custom: true });
		// What the person was shown: the options, the reads, and the open card with its "enough" label.
		expect(log.map((c) => c.visit)).toEqual(["pick", "sure", "name", "more"]);
		expect(log[0]).toMatchObject({
			question: "Which colour?",
			options: [{ label: "red" }, { label: "green" }, { label: "blue", description: "the sky" }],
		});
		expect(log[0].open).toBeUndefined();
		expect(log[1]).toMatchObject({ confirm: true, reads: [{ address: "pick" }] });
		expect(log[1].reads[0].text).toContain('"answer": "green"');
		expect(log[2].options).toBeUndefined();
		expect(log[3]).toMatchObject({
			question: "How big?",
			header: "Size",
			open: true,
			enough: "That's enough",
			options: [{ label: "small" }, { label: "large", description: "the big one" }],
		});
		// Later turns read the answers.
		expect(ran.result.output).toContain("## name\n\nAda");
		expect(ran.result.output).toContain('"custom": true');
		expect(ran.open).toBe(0);
	});

	it("takes a listed answer on an open card as not custom, and `enough` as `{ answered: false }`", async () => {
		const listed = await runInline(project, "cards", cards(), script, "x", {
			ask: scriptedAsk({ pick: "red", sure: false, name: "Bo", more: "large" }),
		});
		expect(outputAt(listed.result, "sure")).toEqual({ yes: false });
		expect(outputAt(listed.result, "more")).toEqual({ answered: true, answer: "large", custom: false });
		const enough = await runInline(project, "cards", cards(), script, "x", {
			ask: scriptedAsk({ pick: "red", sure: true, name: "Bo", more: { kind: "enough" } }),
		});
		expect(enough.result.ok).toBe(true);
		expect(outputAt(enough.result, "more")).toEqual({ answered: false });
	});

	it("ends the run `stopped` when the person stops it from a card", async () => {
		const ran = await runInline(project, "cards", cards(), script, "x", {
			ask: scriptedAsk({ pick: { kind: "stopped" } }),
		});
		expect(ran.result).toMatchObject({ ok: false, errorKind: "stopped", failedAt: "pick" });
		expect(paths(ran.result)).toEqual(["pick"]);
		expect(ran.calls).toBe(0);
	});

	it("fails `stopped` on `enough` for a card that offers no enough", async () => {
		const ran = await runInline(project, "cards", cards(), script, "x", {
			ask: scriptedAsk({ pick: { kind: "enough" } }),
		});
		expect(ran.result).toMatchObject({ ok: false, errorKind: "stopped", failedAt: "pick" });
	});
});

describe("the unattended rules", () => {
	const withDefaults = cards({
		pick: "    default: blue\n",
		sure: "    default: false\n",
		name: "    default: anonymous\n",
	});

	it("takes `default:` when nobody is there, and `enough` as `{ answered: false }`", async () => {
		for (const ask of [NOBODY, undefined]) {
			const ran = await runInline(project, "cards", withDefaults, script, "x", ask ? { ask } : {});
			expect(ran.result.ok).toBe(true);
			expect(outputAt(ran.result, "pick")).toEqual({ answered: true, answer: "blue" });
			expect(outputAt(ran.result, "sure")).toEqual({ yes: false });
			expect(outputAt(ran.result, "name")).toBe("anonymous");
			expect(outputAt(ran.result, "more")).toEqual({ answered: false });
		}
	});

	it("applies the same rules when somebody is there but the card times out or goes unanswered", async () => {
		const ask = scriptedAsk({
			pick: { kind: "timeout" },
			sure: { kind: "nobody" },
			name: { kind: "timeout" },
			more: { kind: "timeout" },
		});
		const ran = await runInline(project, "cards", withDefaults, script, "x", { ask });
		expect(ran.result.ok).toBe(true);
		expect(outputAt(ran.result, "pick")).toEqual({ answered: true, answer: "blue" });
		expect(outputAt(ran.result, "more")).toEqual({ answered: false });
	});

	it("fails `nobody` for a question with neither default nor enough", async () => {
		const ran = await runInline(project, "cards", cards({ pick: "    default: red\n" }), script, "x", { ask: NOBODY });
		expect(ran.result).toMatchObject({ ok: false, errorKind: "nobody", failedAt: "sure" });
		expect(ran.result.error).toBe("sure: nobody: nobody is there to answer and the question has no default");
		expect(ran.calls).toBe(0);
	});

	it("fails `timeout` for a timed-out question with neither default nor enough", async () => {
		const ran = await runInline(project, "cards", cards(), script, "x", {
			ask: scriptedAsk({ pick: { kind: "timeout" } }),
		});
		expect(ran.result).toMatchObject({ ok: false, errorKind: "timeout", failedAt: "pick" });
	});
});

describe("the run stage", () => {
	it("refuses an unattended question with no default, even behind a choice, and passes it when somebody is there", async () => {
		const flow = checkedInline(
			project,
			"gate",
			flowOf(
				"gate",
				`  - id: look
    agent: planner
    output: { depth: number }
  - id: gate
    choice:
      - when: look.output.depth > 2
        do:
          - id: deep
            ask: Go deeper?
            confirm: true
      - when: look.output.depth > 1
        do:
          - id: fine
            ask: Fine?
            confirm: true
            default: true
    default: []
`,
				{ look: "Look." },
			),
		);
		const unattended = await prepareRun(flow, { cwd: project.cwd, somebodyThere: false });
		expect(unattended.ok).toBe(false);
		if (unattended.ok) return;
		expect(unattended.faults.map((f) => [f.code, f.path])).toEqual([["unattended-ask", "gate/deep"]]);
		expect(unattended.faults[0].message).toContain("`deep`");
		const attended = await prepareRun(flow, { cwd: project.cwd, somebodyThere: true });
		expect(attended.ok).toBe(true);
	});

	it("refuses a question with no default inside a called flow", async () => {
		project.write(".pi/flows/asker.md", flowOf("asker", "  - id: q\n    ask: Why?\n", {}));
		const flow = checkedInline(
			project,
			"caller",
			flowOf("caller", "  - id: sub\n    flow: asker\n    input: input\n", {}),
		);
		const stage = await prepareRun(flow, { cwd: project.cwd, somebodyThere: false });
		expect(stage.ok).toBe(false);
		if (!stage.ok)
			expect(stage.faults.map((f) => [f.code, f.path, f.file.endsWith("asker.md")])).toEqual([
				["unattended-ask", "q", true],
			]);
	});

	it("refuses a missing check script and one that a symlink takes outside the repository, and reads the good ones once", async () => {
		gitProject(project, { ".pi/checks/ok.sh": "exit 0\n" });
		const outside = join(project.cwd, "..", "elsewhere");
		mkdirSync(outside, { recursive: true });
		writeFileSync(join(outside, "evil.sh"), "echo evil\n");
		symlinkSync(join(outside, "evil.sh"), join(project.cwd, ".pi/checks/evil.sh"));
		const flow = checkedInline(
			project,
			"checks",
			flowOf(
				"checks",
				"  - id: a\n    check: .pi/checks/ok.sh\n  - id: b\n    check: .pi/checks/nope.sh\n  - id: c\n    check: .pi/checks/evil.sh\n  - id: d\n    check: .pi/checks/ok.sh\n",
				{},
			),
		);
		const stage = await prepareRun(flow, { cwd: project.cwd, somebodyThere: false, git: createGitPort() });
		expect(stage.ok).toBe(false);
		if (stage.ok) return;
		expect(stage.faults.map((f) => [f.code, f.path])).toEqual([
			["check-script-missing", "b.check"],
			["check-script-outside", "c.check"],
		]);
		expect(stage.faults[1].message).toContain("points outside the repository");
		const good = checkedInline(project, "good", flowOf("good", "  - id: a\n    check: .pi/checks/ok.sh\n", {}));
		const ready = await prepareRun(good, { cwd: join(project.cwd, ".pi"), somebodyThere: false, git: createGitPort() });
		expect(ready.ok).toBe(true);
		if (ready.ok) expect([...ready.scripts]).toEqual([[".pi/checks/ok.sh", "exit 0\n"]]);
	});

	it("refuses a flow that commits, copies or reads `diff` outside a repository", async () => {
		const committing = checkedInline(
			project,
			"commits",
			flowOf("commits", "  - id: msg\n    agent: committer\n  - id: save\n    commit: msg\n", { msg: "Write it." }),
		);
		const stage = await prepareRun(committing, { cwd: project.cwd, somebodyThere: false, git: createGitPort() });
		expect(stage.ok).toBe(false);
		if (!stage.ok) {
			expect(stage.faults.map((f) => [f.code, f.path])).toEqual([["not-a-repository", "save"]]);
			expect(stage.faults[0].message).toContain("commits");
		}
		const reading = checkedInline(
			project,
			"reads",
			flowOf("reads", "  - id: look\n    agent: reviewer\n    reads: [diff]\n", { look: "Review." }),
		);
		const noPort = await prepareRun(reading, { cwd: project.cwd, somebodyThere: false });
		expect(noPort.ok).toBe(false);
		if (!noPort.ok) expect(noPort.faults[0]).toMatchObject({ code: "not-a-repository", path: "look" });
		gitProject(project);
		expect((await prepareRun(reading, { cwd: project.cwd, somebodyThere: false, git: createGitPort() })).ok).toBe(true);
	});
});
