/**
 * Nodes that touch the world: a `flow:` call (its input, its output, its failure named by the inner
 * visit), project checks through the bash port (passed, red as a value, timeout), commits on the run's
 * own branch (never the person's), and the `diff` read.
 */
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AskCard, createBashCheck, createGitPort, prepareRun, scriptedAsk } from "../../src/engine/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { checkedInline, git, gitProject, outputAt, paths } from "./world-helpers.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("a flow call", () => {
	const child = flowOf(
		"child",
		"  - id: look\n    agent: scout\n    reads: [input]\n  - id: sum\n    agent: synthesiser\n    reads: [look]\n",
		{ look: "Look at it.", sum: "Sum it up." },
	);
	const caller = flowOf(
		"caller",
		"  - id: prep\n    agent: planner\n  - id: spec\n    flow: child\n    input: prep\n  - id: after\n    agent: synthesiser\n    reads: [spec, spec.ok]\n",
		{ prep: "Prepare.", after: "Finish." },
	);

	it("passes its input, and its output is the callee's last root node's", async () => {
		project.write(".pi/flows/child.md", child);
		const ran = await runInline(
			project,
			"caller",
			caller,
			`turns:\n  prep:\n    - say: the prepared question\n  "spec/look":\n    - say: "looked at: {{section:input}}"\n  "spec/sum":\n    - say: "summary of [{{section:look}}]"\n  after:\n    - say: "{{task}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["prep", "spec/look", "spec/sum", "spec", "after"]);
		expect(outputAt(ran.result, "spec/look")).toBe("looked at: the prepared question");
		expect(outputAt(ran.result, "spec")).toBe("summary of [looked at: the prepared question]");
		expect(ran.result.output).toContain("## spec\n\nsummary of [looked at: the prepared question]");
		expect(ran.result.output).toContain("## spec.ok\n\n```json\ntrue\n```");
		expect(ran.result.visits.find((v) => v.path === "spec")?.kind).toBe("flow");
		expect(ran.open).toBe(0);
	});

	it("fails `child` naming the callee's inner visit, and nothing after it runs", async () => {
		project.write(".pi/flows/child.md", child);
		const ran = await runInline(
			project,
			"caller",
			caller,
			`turns:\n  prep:\n    - say: q\n  "spec/look":\n    - fail: the scout broke\n  "*":\n    - say: never\n`,
		);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "child",
			failedAt: "spec/look",
			error: "spec/look: provider: the scout broke",
		});
		expect(paths(ran.result)).toEqual(["prep", "spec/look", "spec"]);
		expect(ran.result.visits.find((v) => v.path === "spec")?.error).toBe("child: spec/look: provider: the scout broke");
		expect(ran.open).toBe(0);
	});

	it("shares the caller's memory scope nowhere: a callee's `memory: flow` is its own", async () => {
		project.write(
			".pi/flows/mem.md",
			flowOf(
				"mem",
				"  - id: one\n    agent: scout\n    memory: flow\n  - id: two\n    agent: scout\n    memory: flow\n",
				{ one: "One.", two: "Two." },
			),
		);
		const flow = flowOf(
			"outer",
			"  - id: first\n    agent: scout\n    memory: flow\n  - id: sub\n    flow: mem\n    input: input\n  - id: last\n    agent: scout\n    memory: flow\n",
			{ first: "F.", last: "L." },
		);
		const ran = await runInline(project, "outer", flow, `turns:\n  "*":\n    - say: ok\n`);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["first", "sub/one", "sub/two", "sub", "last"]);
		// One scout session for the caller's scope, one for the callee's.
		expect(ran.spawns).toBe(2);
		expect(ran.open).toBe(0);
	});
});

describe("checks", () => {
	const checks = flowOf(
		"checks",
		`  - id: good
    check: .pi/checks/good.sh
  - id: red
    check: .pi/checks/red.sh
  - id: judge
    agent: synthesiser
    reads: [good.output.passed, red.output.passed, red.output.report]
`,
		{ judge: "Judge." },
	);
	const scripts = {
		".pi/checks/good.sh": 'echo "all $(ls | wc -l | tr -d " ") entries fine"\n',
		".pi/checks/red.sh": 'echo "FAIL: one test" >&2\necho "ran in $(basename "$PWD")"\nexit 3\n',
		".pi/checks/slow.sh": "sleep 20\n",
	};

	it("runs a project script: passed, and a red check is a value the flow reads", async () => {
		gitProject(project, scripts);
		const flow = checkedInline(project, "checks", checks);
		const stage = await prepareRun(flow, { cwd: project.cwd, somebodyThere: false, git: createGitPort() });
		expect(stage.ok).toBe(true);
		const ran = await runInline(project, "checks", checks, `turns:\n  judge:\n    - say: "{{task}}"\n`, "x", {
			check: createBashCheck(),
			...(stage.ok ? { scripts: stage.scripts } : {}),
		});
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["good", "red", "judge"]);
		expect(outputAt(ran.result, "good")).toMatchObject({ passed: true });
		expect((outputAt(ran.result, "good") as { report: string }).report).toMatch(/entries fine/);
		const red = outputAt(ran.result, "red") as { passed: boolean; report: string };
		expect(red.passed).toBe(false);
		expect(red.report).toContain("FAIL: one test");
		expect(red.report).toContain("ran in project");
		expect(ran.result.output).toContain("## red.output.passed\n\n```json\nfalse\n```");
	});

	it("runs the script text read at the run stage, not the file as it is later", async () => {
		gitProject(project, scripts);
		const flow = checkedInline(project, "checks", checks);
		const stage = await prepareRun(flow, { cwd: project.cwd, somebodyThere: false, git: createGitPort() });
		project.write(".pi/checks/red.sh", "exit 0\n");
		const ran = await runInline(project, "checks", checks, `turns:\n  judge:\n    - say: ok\n`, "x", {
			check: createBashCheck(),
			...(stage.ok ? { scripts: stage.scripts } : {}),
		});
		expect(outputAt(ran.result, "red")).toMatchObject({ passed: false });
	});

	it("fails `timeout` at the node's bound, and kills the script", async () => {
		gitProject(project, scripts);
		const flow = flowOf("slow", "  - id: slow\n    check: .pi/checks/slow.sh\n    timeout: 300ms\n", {});
		const started = performance.now();
		const ran = await runInline(project, "slow", flow, "turns: {}\n", "x", { check: createBashCheck() });
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "timeout",
			failedAt: "slow",
			error: "slow: timeout: timed out after 300ms",
		});
		expect(performance.now() - started).toBeLessThan(5000);
	});

	it("fails `unavailable` with no check port", async () => {
		const ran = await runInline(project, "checks", checks, "turns: {}\n");
		expect(ran.result).toMatchObject({ ok: false, errorKind: "unavailable", failedAt: "good" });
	});
});

describe("commits and the diff read", () => {
	const commitFlow = flowOf(
		"save",
		`  - id: code
    agent: coder
  - id: message
    agent: committer
    reads: [input, diff]
  - id: save
    commit: message
`,
		{ code: "Write hello.txt.", message: "Write the message." },
	);

	it("commits on the run's branch `pi-flows/<slug>`, never on the person's, and the message writer reads the diff", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const mainBefore = git(project.cwd, ["rev-parse", "main"]);
		const ran = await runInline(
			project,
			"save",
			commitFlow,
			`turns:
  code:
    - call: write
      args: { path: hello.txt, content: "hello world\\n" }
    - say: wrote hello.txt
  message:
    - say: "Add hello.txt\\n\\n{{section:diff|lines:12}}"
`,
			"Add a Greeting!",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["code", "message", "save"]);
		const message = outputAt(ran.result, "message") as string;
		expect(message).toContain("diff --git a/hello.txt b/hello.txt");
		expect(message).toContain("+hello world");
		const save = ran.result.output as { committed: boolean; sha: string; branch: string };
		expect(save).toMatchObject({ committed: true, branch: "pi-flows/add-a-greeting" });
		expect(git(project.cwd, ["rev-parse", "HEAD"])).toBe(save.sha);
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("pi-flows/add-a-greeting");
		expect(git(project.cwd, ["rev-parse", "main"])).toBe(mainBefore);
		expect(git(project.cwd, ["log", "-1", "--format=%an <%ae>|%s"])).toBe(
			"pi-flows <pi-flows@localhost>|Add hello.txt",
		);
		expect(git(project.cwd, ["show", "--name-only", "--format=", "HEAD"])).toBe("hello.txt");
		expect(git(project.cwd, ["status", "--porcelain"])).toBe("");
		expect(ran.open).toBe(0);
	});

	it("fails `empty-message` on a blank message before git is asked anything", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const ran = await runInline(
			project,
			"save",
			commitFlow,
			`turns:\n  code:\n    - say: did nothing\n  message:\n    - say: "   "\n`,
			"x",
			{ git: createGitPort() },
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "empty-message", failedAt: "save" });
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("main");
		expect(git(project.cwd, ["branch", "--list", "pi-flows/*"])).toBe("");
	});

	it("says `committed: false` for a clean tree, still on the run's branch", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const ran = await runInline(
			project,
			"save",
			commitFlow,
			`turns:\n  code:\n    - say: nothing to do\n  message:\n    - say: "Nothing: {{section:diff}}."\n`,
			"clean",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		expect(outputAt(ran.result, "message")).toBe("Nothing: .");
		expect(ran.result.output).toEqual({ committed: false, branch: "pi-flows/clean" });
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("pi-flows/clean");
	});

	it("puts a run's later commits on the branch its first commit opened", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const twice = flowOf(
			"twice",
			`  - id: one
    agent: coder
  - id: first
    commit: one
  - id: two
    agent: coder
  - id: second
    commit: two
`,
			{ one: "One.", two: "Two." },
		);
		const ran = await runInline(
			project,
			"twice",
			twice,
			`turns:
  one:
    - call: write
      args: { path: a.txt, content: "a\\n" }
    - say: Add a
  two:
    - call: write
      args: { path: b.txt, content: "b\\n" }
    - say: Add b
`,
			"two commits",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		expect(outputAt(ran.result, "first")).toMatchObject({ committed: true, branch: "pi-flows/two-commits" });
		expect(outputAt(ran.result, "second")).toMatchObject({ committed: true, branch: "pi-flows/two-commits" });
		expect(git(project.cwd, ["log", "--format=%s", "pi-flows/two-commits"]).split("\n")).toEqual([
			"Add b",
			"Add a",
			"initial",
		]);
		expect(git(project.cwd, ["branch", "--list", "pi-flows/*", "--format=%(refname:short)"])).toBe(
			"pi-flows/two-commits",
		);
	});

	it("keeps the run's branch when a hook refuses the first commit, and across a call", async () => {
		gitProject(project, { "README.md": "readme\n" });
		project.write(".git/hooks/pre-commit", '#!/bin/sh\ntest -f ok.txt || { echo "need ok.txt" >&2; exit 1; }\n');
		chmodSync(join(project.cwd, ".git/hooks/pre-commit"), 0o755);
		project.write(
			".pi/flows/saver.md",
			flowOf("saver", "  - id: fix\n    agent: coder\n  - id: again\n    commit: fix\n", { fix: "Fix." }),
		);
		const flow = flowOf(
			"hooked",
			`  - id: one
    agent: coder
  - id: first
    commit: one
    on-fail: continue
  - id: sub
    flow: saver
    input: input
`,
			{ one: "One." },
		);
		const ran = await runInline(
			project,
			"hooked",
			flow,
			`turns:
  one:
    - call: write
      args: { path: a.txt, content: "a\\n" }
    - say: Add a
  "sub/fix":
    - call: write
      args: { path: ok.txt, content: "ok\\n" }
    - say: Add ok
`,
			"hooked run",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		const first = ran.result.visits.find((v) => v.path === "first");
		expect(first).toMatchObject({ ok: false });
		expect(first?.error).toMatch(/^unavailable: .*need ok\.txt/s);
		expect(outputAt(ran.result, "sub/again")).toMatchObject({ committed: true, branch: "pi-flows/hooked-run" });
		expect(git(project.cwd, ["branch", "--list", "pi-flows/*", "--format=%(refname:short)"])).toBe(
			"pi-flows/hooked-run",
		);
		expect(git(project.cwd, ["show", "--name-only", "--format=%s", "HEAD"]).split("\n")).toEqual([
			"Add ok",
			"",
			"a.txt",
			"ok.txt",
		]);
	});

	it("shows the diff to the person a question reads it for, and to a swarm's members", async () => {
		gitProject(project, { "a.txt": "one\n" });
		project.write("a.txt", "one\ntwo\n");
		project.write("~agent/settings.json", JSON.stringify({ defaultProvider: "scripted", defaultModel: "scripted" }));
		const log: AskCard[] = [];
		const flow = flowOf(
			"shown",
			"  - id: sure\n    ask: Keep this change?\n    confirm: true\n    reads: [diff]\n  - id: crowd\n    swarm: [scout]\n    rounds: 1\n    reads: [diff]\n",
			{ crowd: "Judge the change under `diff`." },
		);
		const ran = await runInline(
			project,
			"shown",
			flow,
			`turns:\n  crowd:\n    - say: "{{section:diff|lines:1}}"\n`,
			"x",
			{ git: createGitPort(), ask: scriptedAsk({ sure: true }, log) },
		);
		expect(ran.result.ok).toBe(true);
		expect(log[0].reads[0].address).toBe("diff");
		expect(log[0].reads[0].text).toContain("diff --git a/a.txt b/a.txt");
		expect(log[0].reads[0].text).toContain("+two");
		const crowd = ran.result.output as { posts: { text: string }[] };
		expect(crowd.posts.map((p) => p.text)).toEqual(["diff --git a/a.txt b/a.txt"]);
	});

	// Regression (src/engine/ports/git-exec.ts `scratchFrom`): a scratch index copied with a new mtime
	// defeats git's racy-clean check, so a same-size rewrite in the second the real index was written went
	// unseen by `git add -A`, and the `diff` read (and a copy's snapshot) missed the change. The copy now
	// keeps the source's mtime.
	it("sees a same-size change made in the second the index was written", async () => {
		// Start at the top of a second, so the commit's index write and the rewrite share it.
		await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
		gitProject(project, { "a.txt": "one\n" });
		project.write("a.txt", "two\n");
		const second = (path: string) => Math.floor(statSync(join(project.cwd, path)).mtimeMs / 1000);
		expect(second("a.txt")).toBe(second(".git/index"));
		// A second later, the diff read copies the index and asks git what changed.
		await new Promise((r) => setTimeout(r, 1100));
		const diff = await createGitPort().diff(project.cwd);
		// git itself sees it (and `git status` refreshes the real index, so it must come second).
		expect(git(project.cwd, ["status", "--porcelain"])).toBe("M a.txt");
		expect(diff.ok && diff.text).toContain("+two");
	});

	it("gives an agent the diff of its own tree, untracked files included and the person's index untouched", async () => {
		gitProject(project, { "a.txt": "one\n" });
		project.write("a.txt", "one\ntwo\n");
		project.write("new.txt", "fresh\n");
		git(project.cwd, ["add", "a.txt"]);
		const index = readFileSync(join(project.cwd, ".git/index"));
		const flow = flowOf("peek", "  - id: look\n    agent: reviewer\n    reads: [diff]\n", { look: "Review." });
		const ran = await runInline(project, "peek", flow, `turns:\n  look:\n    - say: "{{section:diff}}"\n`, "x", {
			git: createGitPort(),
		});
		const diff = ran.result.output as string;
		expect(diff).toContain("diff --git a/a.txt b/a.txt");
		expect(diff).toContain("+two");
		expect(diff).toContain("diff --git a/new.txt b/new.txt");
		expect(diff).not.toContain(".pi/flows");
		expect(readFileSync(join(project.cwd, ".git/index")).equals(index)).toBe(true);
		expect(existsSync(join(project.cwd, "new.txt"))).toBe(true);
	});
});
