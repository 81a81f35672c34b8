/**
 * Branches that write at once, each in its own copy, landing in item order (a conflicting patch is a
 * value, not a crash); a run stopped mid-way (every session closed, quickly); fail-fast in a map; and a
 * swarm with claims and `until`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashCheck, createGitPort, prepareRun } from "../../src/engine/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { checkedInline, git, gitProject, outputAt, paths } from "./world-helpers.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const copiesLeft = () => readdirSync(tmpdir()).filter((f) => f.startsWith("pi-flows-copy-")).length;

describe("copies", () => {
	const mapFlow = flowOf(
		"fan",
		`  - id: work
    map: [first, second]
    concurrency: 2
    copies: true
    do:
      - id: code
        agent: coder
        reads: [item]
      - id: look
        agent: reviewer
        reads: [diff]
  - id: after
    agent: reviewer
    reads: [work, diff]
`,
		{ code: "Do the part under `item`.", look: "Review the change under `diff`.", after: "Review." },
	);
	const writes = (a: { path: string; content: string }, b: { path: string; content: string }, delayFirst = 0) => `turns:
  "work[1]/code":
    - ${delayFirst ? `delay: ${delayFirst}\n      ` : ""}call: write
      args: { path: ${a.path}, content: "${a.content}" }
    - say: "wrote ${a.path} in {{result}}"
  "work[2]/code":
    - call: write
      args: { path: ${b.path}, content: "${b.content}" }
    - say: "wrote ${b.path}"
  look:
    - say: "{{section:diff}}"
  after:
    - say: "{{task}}"
`;

	it("gives each item its own copy and lands every patch in the main tree", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const before = copiesLeft();
		const ran = await runInline(
			project,
			"fan",
			mapFlow,
			writes({ path: "a.txt", content: "from first" }, { path: "b.txt", content: "from second" }),
			"x",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result, "work[1]")).toEqual(["work[1]/code", "work[1]/look"]);
		expect(paths(ran.result, "work[2]")).toEqual(["work[2]/code", "work[2]/look"]);
		// A `diff` read inside a copy is that copy's change alone.
		const look1 = outputAt(ran.result, "work[1]/look") as string;
		expect(look1).toContain("diff --git a/a.txt b/a.txt");
		expect(look1).not.toContain("b.txt");
		expect(outputAt(ran.result, "work[2]/look")).not.toContain("a.txt");
		expect(paths(ran.result).slice(-2)).toEqual(["work", "after"]);
		expect(readFileSync(join(project.cwd, "a.txt"), "utf8")).toBe("from first");
		expect(readFileSync(join(project.cwd, "b.txt"), "utf8")).toBe("from second");
		const work = outputAt(ran.result, "work") as { item: string; ok: boolean; landed: boolean; refused?: string[] }[];
		expect(work.map((e) => [e.item, e.ok, e.landed, e.refused])).toEqual([
			["first", true, true, undefined],
			["second", true, true, undefined],
		]);
		// The coder wrote in its copy, not in the main tree.
		expect(outputAt(ran.result, "work[1]/code")).toMatch(/wrote a\.txt in Successfully wrote/);
		const review = ran.result.output as string;
		expect(review).toContain("diff --git a/a.txt b/a.txt");
		expect(review).toContain("diff --git a/b.txt b/b.txt");
		// Landed as unstaged changes on the person's branch; nothing committed, copies released.
		expect(git(project.cwd, ["symbolic-ref", "--short", "HEAD"])).toBe("main");
		expect(git(project.cwd, ["log", "--format=%s"])).toBe("initial");
		expect(git(project.cwd, ["branch", "--list", "pi-flows-copy/*"])).toBe("");
		expect(git(project.cwd, ["worktree", "list"]).split("\n")).toHaveLength(1);
		expect(copiesLeft()).toBeLessThanOrEqual(before);
		expect(ran.open).toBe(0);
	});

	it("refuses the later item's patch when two items write the same file, as a value, in item order", async () => {
		gitProject(project, { "README.md": "readme\n" });
		// The first item ends last: landing follows item order, not finishing order. Its head start is long
		// enough for the second item's two turns and its copy's git work on a loaded machine.
		const ran = await runInline(
			project,
			"fan",
			mapFlow,
			writes({ path: "same.txt", content: "first version" }, { path: "same.txt", content: "second version" }, 2500),
			"x",
			{ git: createGitPort() },
		);
		expect(ran.result.ok).toBe(true);
		// Item 1 ends last unless the machine is starved of CPU for its whole head start; either way the
		// landing below must follow item order, so the ending order is not asserted.
		const order = paths(ran.result);
		expect(order.slice(-2)).toEqual(["work", "after"]);
		const work = outputAt(ran.result, "work") as { item: string; ok: boolean; landed: boolean; refused?: string[] }[];
		expect(work[0]).toMatchObject({ item: "first", ok: true, landed: true });
		expect(work[0].refused).toBeUndefined();
		expect(work[1]).toMatchObject({ item: "second", ok: true, landed: false, refused: ["same.txt"] });
		expect(readFileSync(join(project.cwd, "same.txt"), "utf8")).toBe("first version");
		// The reviewer after the block reads the refusal.
		expect(ran.result.output).toContain('"refused": [\n');
		expect(ran.result.output).toContain('"same.txt"');
		// The refused work is kept on its branch (issue 21), and the entry says which.
		const kept = git(project.cwd, ["branch", "--list", "pi-flows-copy/*", "--format=%(refname:short)"]).trim();
		expect(kept).toMatch(/^pi-flows-copy\/work-2-[0-9a-f]{6}$/);
		expect((work[1] as { kept?: string }).kept).toBe(kept);
		expect(git(project.cwd, ["show", `${kept}:same.txt`])).toBe("second version");
		expect(ran.open).toBe(0);
	});

	it("lands nothing and releases every copy when the run is stopped", async () => {
		gitProject(project, { "README.md": "readme\n" });
		const controller = new AbortController();
		const script = `turns:
  "work[1]/code":
    - call: write
      args: { path: a.txt, content: "a" }
    - say: done
  "work[2]/code":
    - hang: true
  look:
    - say: looked
`;
		// Stopped once the first item has written (and its turn ended), while the second still hangs.
		const onEvent = (e: { type: string; path?: string }) => {
			if (e.type === "node_end" && e.path === "work[1]/code") setTimeout(() => controller.abort(), 50);
		};
		const ran = await runInline(project, "fan", mapFlow, script, "x", {
			git: createGitPort(),
			signal: controller.signal,
			onEvent,
		});
		expect(ran.result).toMatchObject({ ok: false, errorKind: "stopped" });
		expect(existsSync(join(project.cwd, "a.txt"))).toBe(false);
		// What the stopped item wrote is kept on its branch, and the failure says where (issue 21).
		const kept = git(project.cwd, ["branch", "--list", "pi-flows-copy/*", "--format=%(refname:short)"]).trim();
		expect(kept).toMatch(/^pi-flows-copy\/work-1-[0-9a-f]{6}$/);
		expect(git(project.cwd, ["show", `${kept}:a.txt`])).toBe("a");
		expect(ran.result.error).toContain(`kept on branch ${kept}`);
		expect(ran.open).toBe(0);
	});
});

describe("stopping a run", () => {
	it("ends `stopped` quickly, with every session and script closed", async () => {
		gitProject(project, { ".pi/checks/slow.sh": "sleep 30\n" });
		const flow = flowOf(
			"busy",
			`  - id: first
    agent: scout
  - id: both
    parallel:
      talk:
        - id: a
          agent: scout
          memory: both
        - id: b
          agent: scout
          memory: both
      test:
        - id: slow
          check: .pi/checks/slow.sh
      fan:
        - id: many
          map: [x, y, z]
          concurrency: 3
          do:
            - id: c
              agent: scout
  - id: never
    agent: scout
`,
			{ first: "F.", a: "A.", b: "B.", c: "C.", never: "N." },
		);
		const stage = await prepareRun(checkedInline(project, "busy", flow), {
			cwd: project.cwd,
			somebodyThere: false,
			git: createGitPort(),
		});
		if (!stage.ok) throw new Error("the run stage refused");
		const controller = new AbortController();
		const events: string[] = [];
		let stoppedAt = Number.NaN;
		const ran = runInline(
			project,
			"busy",
			flow,
			`turns:\n  first:\n    - say: go\n  a:\n    - say: a done\n  b:\n    - hang: true\n  c:\n    - hang: true\n  never:\n    - say: no\n`,
			"x",
			{
				check: createBashCheck(),
				scripts: stage.scripts,
				signal: controller.signal,
				onEvent: (e) => {
					if (e.type === "turn_start") events.push(e.path);
					// Stop once every hanging turn is in flight.
					if (events.filter((p) => p.endsWith("/c") || p.endsWith("/b")).length === 4 && !controller.signal.aborted) {
						stoppedAt = performance.now();
						controller.abort();
					}
				},
			},
		);
		const done = await ran;
		// From the stop to the end: the hanging turns would never end, the script not for 30 s.
		const took = performance.now() - stoppedAt;
		expect(done.result).toMatchObject({ ok: false, errorKind: "stopped" });
		expect(done.result.error).toMatch(/^both: stopped: /);
		expect(took).toBeLessThan(10_000);
		expect(done.open).toBe(0);
		expect(paths(done.result)).not.toContain("never");
		const byPath = new Map(done.result.visits.map((v) => [v.path, v]));
		expect(byPath.get("both/talk/b")?.error).toMatch(/^stopped: /);
		expect(byPath.get("both/test/slow")?.error).toMatch(/^stopped: /);
		for (const i of [1, 2, 3]) expect(byPath.get(`both/fan/many[${i}]/c`)?.error).toMatch(/^stopped: /);
	});

	// Regression: a stop that landed while a check's script was still being read (a run without the run
	// stage's scripts) used to be missed: the abort listener was registered on a signal that had already
	// fired, so the script ran to its end or its timeout.
	it("stops a check whose script was still being read when the stop came", async () => {
		// The script would outlast the bound many times over, so a loaded machine's slow spawn is no false alarm.
		project.write("slow.sh", "sleep 30\n");
		const controller = new AbortController();
		const started = performance.now();
		const running = createBashCheck().run({
			script: "slow.sh",
			root: project.cwd,
			cwd: project.cwd,
			timeoutMs: 60_000,
			signal: controller.signal,
		});
		controller.abort();
		const out = await running;
		expect(out).toMatchObject({ ok: false, kind: "stopped" });
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	it("refuses to start anything once the signal has already aborted", async () => {
		const controller = new AbortController();
		controller.abort();
		const ran = await runInline(
			project,
			"one",
			flowOf("one", "  - id: look\n    agent: scout\n", { look: "L." }),
			`turns:\n  look:\n    - say: no\n`,
			"x",
			{ signal: controller.signal },
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "stopped" });
		expect(ran.spawns).toBe(0);
		expect(ran.calls).toBe(0);
	});
});

describe("fail-fast in a map", () => {
	const flow = flowOf(
		"fast",
		`  - id: work
    map: [a, b, c]
    concurrency: 2
    fail-fast: true
    do:
      - id: act
        agent: scout
        reads: [item]
`,
		{ act: "Act on `item`." },
	);

	it("cuts the running items and never starts the rest; the block names the first real failure", async () => {
		const ran = await runInline(
			project,
			"fast",
			flow,
			`turns:\n  "work[1]/act":\n    - delay: 80\n      fail: broken\n  "work[2]/act":\n    - hang: true\n  "work[3]/act":\n    - say: never\n`,
		);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "child",
			failedAt: "work[1]/act",
			error: "work[1]/act: provider: broken",
		});
		expect(paths(ran.result)).toEqual(["work[1]/act", "work[2]/act", "work"]);
		expect(ran.result.visits.find((v) => v.path === "work[2]/act")?.error).toMatch(/^cancelled: /);
		const entries = outputAt(ran.result, "work") as { item: string; ok: boolean; error?: { kind: string } }[];
		expect(entries.map((e) => [e.item, e.ok, e.error?.kind])).toEqual([
			["a", false, "provider"],
			["b", false, "cancelled"],
			["c", false, "cancelled"],
		]);
		expect(ran.spawns).toBe(2);
		expect(ran.open).toBe(0);
	});

	// Regression: a turn cut while in flight used to keep the subagent's own message (`cancelled: aborted`),
	// where a turn cut before it started said why (`cancelled: cut by a failing sibling (fail-fast)`); both
	// now say why.
	it("words an in-flight cut as a fail-fast cut, like a cut before the turn starts", async () => {
		const ran = await runInline(
			project,
			"fast",
			flow,
			`turns:\n  "work[1]/act":\n    - delay: 80\n      fail: broken\n  "work[2]/act":\n    - hang: true\n`,
		);
		expect(ran.result.visits.find((v) => v.path === "work[2]/act")?.error).toBe(
			"cancelled: cut by a failing sibling (fail-fast)",
		);
	});

	it("without fail-fast, runs every item and keeps each failure in its slot", async () => {
		const slow = flow.replace("    fail-fast: true\n", "");
		const ran = await runInline(
			project,
			"fast",
			slow,
			`turns:\n  "work[1]/act":\n    - fail: broken\n  "work[2]/act":\n    - delay: 50\n      say: two\n  "work[3]/act":\n    - delay: 100\n      say: three\n`,
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "child", failedAt: "work[1]/act" });
		const entries = outputAt(ran.result, "work") as { ok: boolean; output?: string }[];
		expect(entries.map((e) => e.output ?? null)).toEqual([null, "two", "three"]);
	});
});

describe("a swarm", () => {
	/** pi's settings name the scripted model as the default: the only way swarm members find a model today. */
	const settingsModel = () =>
		project.write("~agent/settings.json", JSON.stringify({ defaultProvider: "scripted", defaultModel: "scripted" }));
	const flow = (until: string) =>
		flowOf(
			"survey",
			`  - id: list
    agent: planner
    output: { files: [string] }
  - id: survey
    swarm: [{ agent: scout, count: 2 }]
    rounds: 3
    claims-from: list.output.files
    reads: [input]
${until}  - id: answer
    agent: synthesiser
    reads: [survey]
`,
			{ list: "List.", survey: "Describe each file; claim it first.", answer: "Answer." },
		);
	const script = `turns:
  list:
    - call: submit
      args: { files: [a.md, b.md] }
  "survey/scout[0]#1":
    - call: read
      args: { path: a.md }
    - say: "CLAIM: a.md\\na.md says {{result|lines:1}}"
  "survey/scout[1]#1":
    - say: "CLAIM: a.md"
  "survey/scout[1]#2":
    - say: "{{section:Claims|lines:4}}\\nCLAIM: b.md"
  "survey/scout[0]#2":
    - say: a.md done
  "survey/scout[0]#3":
    - say: still here
  "survey/scout[1]#3":
    - say: b.md done
  answer:
    - say: "{{section:survey}}"
`;

	// Regression: swarm members were never given a model (only `agent` nodes were resolved), so they ignored
	// the run's `--model`/`--script` and the flow's `model:`. The other swarm tests also give the project a
	// pi default model, which the first one here deliberately does not.
	it("runs its members on the run's model", async () => {
		project.write("a.md", "Alpha file.\n");
		const ran = await runInline(project, "survey", flow(""), script);
		expect(ran.result.ok).toBe(true);
	});

	it("stops when `until` holds on the live claims, settling a contested claim in member order", async () => {
		project.write("a.md", "Alpha file.\n");
		settingsModel();
		const ran = await runInline(project, "survey", flow("    until: size(survey.output.held) == 2\n"), script);
		expect(ran.result.ok).toBe(true);
		expect(paths(ran.result)).toEqual(["list", "survey", "answer"]);
		const survey = outputAt(ran.result, "survey") as {
			converged: boolean;
			rounds: number;
			posts: { member: string; text: string }[];
			held: string[];
			released: string[];
		};
		expect(survey.converged).toBe(true);
		expect(survey.rounds).toBe(2);
		expect(survey.held).toEqual(["a.md", "b.md"]);
		expect(survey.posts.map((p) => p.text.split("\n")[0])).toEqual([
			"CLAIM: a.md",
			"CLAIM: a.md",
			"a.md done",
			"You hold: nothing.",
		]);
		expect(survey.posts[0].text).toContain("a.md says Alpha file.");
		// The loser of the contested claim was told so, and saw what is free.
		expect(survey.posts[3].text).toContain("You hold: nothing.");
		expect(survey.posts[3].text).toContain("Free: b.md.");
		expect(survey.posts[3].text).toMatch(/a\.md is held by scout#\d/);
		expect(ran.spawns).toBe(4);
		expect(ran.open).toBe(0);
	});

	it("fails where it was stopped, not at the node after it", async () => {
		settingsModel();
		const controller = new AbortController();
		// Stopped once the swarm has begun (its members hang), whatever the machine's speed.
		const ran = await runInline(
			project,
			"survey",
			flow(""),
			`turns:\n  list:\n    - call: submit\n      args: { files: [a.md] }\n  survey:\n    - hang: true\n`,
			"x",
			{
				signal: controller.signal,
				onEvent: (e) => {
					if (e.type === "node_start" && e.path === "survey") setTimeout(() => controller.abort(), 200);
				},
			},
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "stopped", failedAt: "survey" });
		expect(paths(ran.result)).toEqual(["list", "survey"]);
		expect(ran.open).toBe(0);
	});

	it("plays every round without `until`, and releases what members held when they close", async () => {
		project.write("a.md", "Alpha file.\n");
		settingsModel();
		const ran = await runInline(project, "survey", flow(""), script);
		expect(ran.result.ok).toBe(true);
		const survey = outputAt(ran.result, "survey") as {
			converged: boolean;
			rounds: number;
			posts: unknown[];
			held: string[];
			released: string[];
		};
		expect(survey).toMatchObject({ converged: false, rounds: 3, held: ["a.md", "b.md"], released: ["a.md", "b.md"] });
		expect(survey.posts).toHaveLength(6);
	});
});
