/**
 * The shipped `build` flow end to end on the scripted model, in a temp git repository with a project
 * check that tests the files the coders write: retries, a pair loop at its cap, obligations the audit
 * raises carried as the next round's subtasks, `deliver` at its cap, `give-up`, and a conflicting patch.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { git, gitProject, outputAt, paths } from "../engine/world-helpers.ts";
import { agentsAt, fixture, runShipped, type ShippedRun } from "./shipped.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

/** The project's check: the files the coders are asked to write, with the words they must hold. */
const testScript = (files: Record<string, string>) =>
	[
		"# The project's check: each file the coders write must say its word.",
		"fail=0",
		...Object.entries(files).map(
			([file, word]) => `grep -qx "${word}" ${file} 2>/dev/null || { echo "FAIL: ${file} must say ${word}"; fail=1; }`,
		),
		'[ "$fail" = 0 ] && echo "ok: every file says its word"',
		'exit "$fail"',
		"",
	].join("\n");

function repo(files: Record<string, string> = { "greet.txt": "hello", "farewell.txt": "goodbye" }) {
	gitProject(project, { "README.md": "# Greeter\n", ".pi/checks/test.sh": testScript(files) });
}

/** Paths outside the map items (which run two at a time, so only each item's own order is fixed). */
const outsideItems = (ran: ShippedRun) => paths(ran.result).filter((p) => !/\/work\[\d+\]\//.test(p));
const verdicts = (ran: ShippedRun, prefix: string) =>
	ran.result.visits.filter((v) => v.path.startsWith(prefix) && v.node === "review").map((v) => v.output);
const copiesGone = () => {
	expect(git(project.cwd, ["branch", "--list", "pi-flows-copy/*"])).toBe("");
	expect(git(project.cwd, ["worktree", "list"]).split("\n")).toHaveLength(1);
};

/** Script turns up to the audit: one subtask, written by the coder and approved by the reviewer. */
const ONE_GREETING_APPROVED = `turns:
  locate:
    - say: greet.txt
  plan:
    - call: submit
      args: { subtasks: [{ text: write greet.txt }] }
  code:
    - call: write
      args: { path: greet.txt, content: "hello\\n" }
    - say: wrote greet.txt
  review:
    - call: verdict
      args: { approved: true }
`;

describe("build", () => {
	it("delivers in two rounds: retries, a pair at its cap, and the audit's obligation carried as round 2's subtask", async () => {
		repo();
		const ran = await runShipped(project, "build", fixture("build.script.yaml"), "Greet and say goodbye");
		expect(ran.result.ok).toBe(true);
		expect(outsideItems(ran)).toEqual([
			"locate",
			"plan",
			"deliver#1/work",
			"deliver#1/tests",
			"deliver#1/audit",
			"deliver#2/work",
			"deliver#2/tests",
			"deliver#2/audit",
			"deliver",
			"report",
		]);
		expect(paths(ran.result, "deliver#1/work[1]/")).toEqual([
			"deliver#1/work[1]/pair#1/code",
			"deliver#1/work[1]/pair#1/review",
			"deliver#1/work[1]/pair",
		]);
		expect(paths(ran.result, "deliver#1/work[2]/")).toEqual([
			"deliver#1/work[2]/pair#1/code",
			"deliver#1/work[2]/pair#1/review",
			"deliver#1/work[2]/pair#2/code",
			"deliver#1/work[2]/pair#2/review",
			"deliver#1/work[2]/pair#3/code",
			"deliver#1/work[2]/pair#3/review",
			"deliver#1/work[2]/pair",
		]);
		expect(paths(ran.result, "deliver#2/work[")).toEqual([
			"deliver#2/work[1]/pair#1/code",
			"deliver#2/work[1]/pair#1/review",
			"deliver#2/work[1]/pair",
		]);

		// Retries: a provider failure, then a missing submit, each followed by a correct answer.
		expect(agentsAt(ran, "locate")).toEqual(["scout", "scout"]);
		expect(agentsAt(ran, "plan")).toEqual(["planner", "planner"]);
		expect(outputAt(ran.result, "plan")).toEqual({
			subtasks: [{ text: "write greet.txt saying hello" }, { text: "write farewell.txt saying goodbye" }],
		});

		// The second pair never converged: its cap is a value under `on-fail: continue`, and the item is ok.
		expect(verdicts(ran, "deliver#1/work[2]/")).toEqual([
			{ approved: false, remarks: "the farewell needs a comment" },
			{ approved: false },
			{ approved: false, remarks: "giving up on this one" },
		]);
		expect(outputAt(ran.result, "deliver#1/work[2]/pair")).toMatchObject({
			converged: false,
			stop: "cap",
			iterations: 3,
		});
		expect(outputAt(ran.result, "deliver#1/work[2]/pair#2/code")).toContain(
			'still on it: ```json\n[\n  {\n    "id": "o1",\n    "text": "explain the farewell"',
		);
		const round1 = outputAt(ran.result, "deliver#1/work") as {
			item: { text: string };
			ok: boolean;
			landed: boolean;
			output: { converged: boolean };
		}[];
		expect(round1.map((e) => [e.item.text, e.ok, e.landed, e.output.converged])).toEqual([
			["write greet.txt saying hello", true, true, true],
			["write farewell.txt saying goodbye", true, true, false],
		]);

		// Round 1's check passed; the audit raised o1, which became round 2's only subtask.
		expect(outputAt(ran.result, "deliver#1/tests")).toMatchObject({
			passed: true,
			report: "ok: every file says its word\n",
		});
		expect(outputAt(ran.result, "deliver#1/audit")).toEqual({ approved: false, remarks: "the README says nothing" });
		const round2 = outputAt(ran.result, "deliver#2/work") as { item: { id: string; text: string }; landed: boolean }[];
		expect(round2.map((e) => [e.item, e.landed])).toEqual([
			[{ id: "o1", text: "mention greet.txt in README.md" }, true],
		]);
		expect(outputAt(ran.result, "deliver#2/work[1]/pair#1/code")).toContain(
			"## item.text\n\nmention greet.txt in README.md",
		);
		expect(outputAt(ran.result, "deliver#2/audit")).toEqual({ approved: true });
		expect(outputAt(ran.result, "deliver")).toMatchObject({ converged: true, stop: "until", iterations: 2 });

		// The report reads the request, the last check, the loop's value and the whole diff.
		const report = ran.result.output as string;
		expect(report).toContain("## input\n\nGreet and say goodbye");
		expect(report).toContain(
			'## deliver.output.last.tests\n\n```json\n{\n  "ok": true,\n  "output": {\n    "passed": true',
		);
		expect(report).toContain('"converged": true');
		expect(report).toMatch(
			/## diff\n\ndiff --git a\/README\.md b\/README\.md[\s\S]*\+See greet\.txt\.[\s\S]*diff --git a\/farewell\.txt[\s\S]*diff --git a\/greet\.txt/,
		);

		// Every patch landed in the person's tree as unstaged changes; nothing was committed; copies gone.
		expect(readFileSync(join(project.cwd, "greet.txt"), "utf8")).toBe("hello\n");
		expect(readFileSync(join(project.cwd, "farewell.txt"), "utf8")).toBe("goodbye\n");
		expect(readFileSync(join(project.cwd, "README.md"), "utf8")).toBe("# Greeter\n\nSee greet.txt.\n");
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("main");
		expect(git(project.cwd, ["log", "--format=%s"])).toBe("initial");
		copiesGone();
		expect(ran.open).toBe(0);
	});

	it("stops `deliver` at `max: 2` not converged, and the report says what is left open", async () => {
		repo();
		const script = `${ONE_GREETING_APPROVED}  "deliver#1/audit":
    - call: verdict
      args: { approved: false, raised: [farewell.txt is missing] }
  "deliver#2/audit":
    - call: verdict
      args: { approved: false, remarks: still missing }
  report:
    - say: "left open: {{section:deliver|lines:40}}"
`;
		const ran = await runShipped(project, "build", script, "Greet and say goodbye");
		// `deliver` is `on-fail: continue`: the cap is no success (converged false), but the report still runs.
		expect(ran.result).toMatchObject({ ok: true });
		expect(outsideItems(ran)).toEqual([
			"locate",
			"plan",
			"deliver#1/work",
			"deliver#1/tests",
			"deliver#1/audit",
			"deliver#2/work",
			"deliver#2/tests",
			"deliver#2/audit",
			"deliver",
			"report",
		]);
		// A red check is a value the loop reads, not a failure.
		expect(outputAt(ran.result, "deliver#1/tests")).toMatchObject({
			passed: false,
			report: "FAIL: farewell.txt must say goodbye\n",
		});
		expect(outputAt(ran.result, "deliver")).toMatchObject({ converged: false, stop: "cap", iterations: 2 });
		// The obligation the audit raised in round 1 is round 2's subtask; it stays open.
		const round2 = outputAt(ran.result, "deliver#2/work") as { item: { id: string; text: string } }[];
		expect(round2.map((e) => e.item)).toEqual([{ id: "o1", text: "farewell.txt is missing" }]);
		expect(ran.open).toBe(0);
		copiesGone();
	});

	it("gives up when the audit does not approve and raises nothing", async () => {
		repo({ "greet.txt": "hello" });
		const script = `${ONE_GREETING_APPROVED}  audit:
    - call: verdict
      args: { approved: false, remarks: something feels off }
  report:
    - say: the audit gave up without naming what is missing
`;
		const ran = await runShipped(project, "build", script, "Greet");
		expect(ran.result).toMatchObject({ ok: true });
		expect(outsideItems(ran)).toEqual([
			"locate",
			"plan",
			"deliver#1/work",
			"deliver#1/tests",
			"deliver#1/audit",
			"deliver",
			"report",
		]);
		expect(outputAt(ran.result, "deliver#1/tests")).toMatchObject({ passed: true });
		expect(outputAt(ran.result, "deliver")).toMatchObject({ converged: false, stop: "give-up", iterations: 1 });
		expect(ran.open).toBe(0);
	});

	it("refuses the second of two patches to the same file, reports it, and still writes the report", async () => {
		repo({ "greet.txt": "hello" });
		const script = `turns:
  locate:
    - say: greet.txt
  plan:
    - call: submit
      args: { subtasks: [{ text: greet in English }, { text: greet informally }] }
  "deliver#1/work[1]/pair#1/code":
    - delay: 100
      call: write
      args: { path: greet.txt, content: "hello\\n" }
    - say: wrote hello
  "deliver#1/work[2]/pair#1/code":
    - call: write
      args: { path: greet.txt, content: "hi\\n" }
    - say: wrote hi
  review:
    - call: verdict
      args: { approved: true }
  audit:
    - call: verdict
      args: { approved: true }
  report:
    - say: "{{task}}"
`;
		const ran = await runShipped(project, "build", script, "Greet");
		expect(ran.result.ok).toBe(true);
		expect(outsideItems(ran)).toEqual([
			"locate",
			"plan",
			"deliver#1/work",
			"deliver#1/tests",
			"deliver#1/audit",
			"deliver",
			"report",
		]);
		const work = outputAt(ran.result, "deliver#1/work") as { ok: boolean; landed: boolean; refused?: string[] }[];
		expect(work.map((e) => [e.ok, e.landed, e.refused])).toEqual([
			[true, true, undefined],
			[true, false, ["greet.txt"]],
		]);
		// Item order decides, not finishing order: the slower first item's patch is the one that landed.
		expect(readFileSync(join(project.cwd, "greet.txt"), "utf8")).toBe("hello\n");
		expect(git(project.cwd, ["status", "--porcelain"])).toBe("?? greet.txt");
		expect(existsSync(join(project.cwd, "greet.txt.orig"))).toBe(false);
		// The refusal travels to the report as a value.
		const report = ran.result.output as string;
		expect(report).toContain('"landed": false');
		expect(report).toMatch(/"refused": \[\s*"greet\.txt"\s*\]/);
		// The refused work is kept on its copy's branch, and the report reads where (issue 21).
		const kept = git(project.cwd, ["branch", "--list", "pi-flows-copy/*", "--format=%(refname:short)"]).trim();
		expect(kept).toMatch(/^pi-flows-copy\/work-2-[0-9a-f]{6}$/);
		expect(report).toContain(`"kept": "${kept}"`);
		expect(git(project.cwd, ["worktree", "list"]).split("\n")).toHaveLength(1);
		expect(ran.open).toBe(0);
	});
});
