/**
 * `pi-flows run --reuse` as a person meets it: the real binary on the scripted model, in a git repository,
 * run twice. A rerun whose script is empty (`turns: {}`) can only succeed if nothing played; every visit
 * that plays says why, in the line the person reads and in `result.json`.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../../helpers/project.ts";

let project: TempProject;

function cli(...args: string[]) {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: project.cwd,
		env: project.env,
		encoding: "utf8",
		timeout: 120_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const git = (...args: string[]) =>
	execFileSync("git", args, { cwd: project.cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** The newest run folder's file, parsed. */
function newest(file: string): Record<string, unknown> {
	const home = join(project.cwd, ".pi", "runs");
	const dir = readdirSync(home).sort().at(-1) as string;
	return JSON.parse(readFileSync(join(home, dir, file), "utf8"));
}

function journal(): Record<string, unknown>[] {
	const home = join(project.cwd, ".pi", "runs");
	const dir = readdirSync(home).sort().at(-1) as string;
	return readFileSync(join(home, dir, "journal.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
}

const EMPTY = "turns: {}\n";

beforeAll(() => {
	project = tempProject();
	git("init", "-q", "-b", "main");
	git("config", "user.name", "Test Person");
	git("config", "user.email", "test@example.com");
	project.write("notes.md", "Herons stand still for a long time.\n");
	project.write(".gitignore", "*.yaml\n");
	project.write(
		".pi/flows/two.md",
		`---\nname: two\ndescription: look, then answer\ninput: string\nnodes:\n  - id: look\n    agent: scout\n    reads: [input]\n  - id: answer\n    agent: scout\n    reads: [input, look]\n---\n\n## look\n\nRead the notes.\n\n## answer\n\nAnswer from what was found.\n`,
	);
	project.write(
		"two.yaml",
		'turns:\n  look:\n    - call: read\n      args: { path: notes.md }\n    - say: "notes say: {{result}}"\n  answer:\n    - say: "The answer: {{section:look}}"\n',
	);
	project.write("empty.yaml", EMPTY);
	git("add", "-A");
	git("commit", "-q", "-m", "initial");
});
afterAll(() => project.cleanup());

describe("pi-flows run --reuse", () => {
	it("plays nothing when nothing changed: the outputs, and usage shown as saved, counted 0", () => {
		const first = cli("run", "two", "what do herons do?", "--script", "two.yaml", "--project", "--json");
		expect(first.code).toBe(0);
		const paid = JSON.parse(first.stdout).usage.totalTokens as number;
		expect(paid).toBeGreaterThan(0);
		// Every visit's identity is journaled as it starts, reuse or not.
		expect(
			journal()
				.filter((e) => e.type === "identity")
				.map((e) => e.path),
		).toEqual(["look", "answer"]);

		const again = cli("run", "two", "what do herons do?", "--script", "empty.yaml", "--project", "--reuse", "--json");
		expect(again.stderr).toMatch(/✓ look · scout · reused from \.pi\/runs\/\S+-two \(saved [\d.k]+ tokens\)/);
		expect(again.stderr).toContain("reused 2 of 2 visits");
		expect(again.code).toBe(0);
		const out = JSON.parse(again.stdout);
		expect(out.output).toBe("The answer: notes say: Herons stand still for a long time.");
		expect(out.usage.totalTokens).toBe(0);
		expect(out.reuse).toMatchObject({ reused: 2, ran: 0, saved: { totalTokens: paid } });
		// The new run is complete on its own: its journal holds the outputs, the reuse facts and where the
		// transcripts are; result.json and usage.json say what was saved.
		const ends = journal().filter((e) => e.type === "visit_end") as {
			ended: { output: string; reuse: Record<string, unknown> };
			usage: { totalTokens: number };
		}[];
		expect(ends.map((e) => e.ended.output)).toEqual([
			"notes say: Herons stand still for a long time.",
			"The answer: notes say: Herons stand still for a long time.",
		]);
		expect(ends[0].ended.reuse).toMatchObject({
			outcome: "reused",
			path: "look",
			transcript: { path: "look", life: 1 },
		});
		expect(ends.every((e) => e.usage.totalTokens === 0)).toBe(true);
		expect(newest("result.json")).toMatchObject({ ok: true, reuse: { reused: 2, ran: 0 } });
		expect(newest("usage.json")).toMatchObject({ total: { totalTokens: 0 }, saved: { totalTokens: paid } });
	}, 120_000);

	it("plans before spending: what is certain to be reused, what runs, what depends on an output that may change", () => {
		const same = cli("plan", "two", "--project", "--reuse", "--json");
		expect(same.code).toBe(0);
		expect(JSON.parse(same.stdout).reuse).toMatchObject({ visits: 2, reused: 2, runs: 0, mayChange: 0 });
		const file = join(project.cwd, ".pi/flows/two.md");
		const text = readFileSync(file, "utf8");
		project.write(".pi/flows/two.md", text.replace("Read the notes.", "Read the notes twice."));
		const plan = cli("plan", "two", "--project", "--reuse");
		project.write(".pi/flows/two.md", text);
		expect(plan.code).toBe(0);
		expect(plan.stdout).toMatch(/▶ look +runs: `## look` changed · [\d.k]+ tokens/);
		expect(plan.stdout).toMatch(/\? answer +may change: it reads `look`, which runs · [\d.k]+ tokens/);
		expect(plan.stdout).toMatch(
			/runs 1 of 2 visits, about [\d.k]+ tokens; 1 may change \(about [\d.k]+ tokens\); 0 reused/,
		);
	}, 120_000);

	it("runs only what changed, and says which part: a section, the input, an upstream output, the tree", () => {
		project.write(
			".pi/flows/two.md",
			readFileSync(join(project.cwd, ".pi/flows/two.md"), "utf8").replace(
				"Answer from what was found.",
				"Answer briefly from what was found.",
			),
		);
		// Only `answer` may play: a script that answers `look` too would hide a miss.
		project.write("answer.yaml", 'turns:\n  answer:\n    - say: "Briefly: {{section:look}}"\n');
		const section = cli("run", "two", "what do herons do?", "--script", "answer.yaml", "--project", "--reuse");
		expect(section.code).toBe(0);
		expect(section.stderr).toContain("✓ look · scout · reused from");
		expect(section.stderr).toMatch(/✓ answer · scout · scripted\/scripted · .* · ran: `## answer` changed/);
		expect(newest("result.json")).toMatchObject({
			reuse: { reused: 1, ran: 1, visits: [{ path: "look" }, { path: "answer", why: "`## answer` changed" }] },
		});

		const input = cli("run", "two", "what do herons eat?", "--script", "two.yaml", "--project", "--reuse");
		expect(input.code).toBe(0);
		expect(input.stderr).toContain("✓ look · scout · scripted/scripted");
		expect(input.stderr).toContain("ran: input changed");

		project.write("notes.md", "Herons eat fish.\n");
		const tree = cli("run", "two", "what do herons eat?", "--script", "two.yaml", "--project", "--reuse");
		expect(tree.code).toBe(0);
		expect(tree.stderr).toContain("· ran: 1 file of the tree changed: notes.md");
		expect(tree.stderr).toContain("· ran: `look`'s output changed; 1 file of the tree changed: notes.md");
		git("checkout", "--", "notes.md");
	}, 120_000);

	it("never reuses a visit that failed: it runs, saying it failed there", () => {
		project.write("fails.yaml", "turns:\n  look:\n    - say: seen\n  answer:\n    - fail: quota exceeded\n");
		const failed = cli("run", "two", "who?", "--script", "fails.yaml", "--project");
		expect(failed.code).toBe(1);
		project.write("answer-only.yaml", "turns:\n  answer:\n    - say: answered\n");
		const again = cli("run", "two", "who?", "--script", "answer-only.yaml", "--project", "--reuse");
		expect(again.code).toBe(0);
		expect(again.stderr).toContain("✓ look · scout · reused from");
		expect(again.stderr).toContain("ran: it failed in the earlier run (provider: quota exceeded)");
	}, 120_000);

	it("reuses a map per item: one item changed plays one visit, an item that moved is found where it went", () => {
		const items = Array.from({ length: 12 }, (_, i) => `topic ${i + 1}`);
		const mapFlow = (list: string[]) =>
			`---\nname: wide\ndescription: a map\ninput: string\nnodes:\n  - id: wide\n    map: [${list.join(", ")}]\n    concurrency: 4\n    do:\n      - id: look\n        agent: scout\n        reads: [item]\n---\n\n## look\n\nLook into the topic.\n`;
		project.write(".pi/flows/wide.md", mapFlow(items));
		project.write("wide.yaml", 'turns:\n  look:\n    - say: "seen: {{section:item}}"\n');
		expect(cli("run", "wide", "go", "--script", "wide.yaml", "--project").code).toBe(0);
		project.write(".pi/flows/wide.md", mapFlow([...items.slice(0, 11), "topic twelve"]));
		const one = cli("run", "wide", "go", "--script", "wide.yaml", "--project", "--reuse", "--json");
		expect(one.code).toBe(0);
		const out = JSON.parse(one.stdout);
		expect(out.reuse).toMatchObject({ reused: 11, ran: 1 });
		expect(out.reuse.visits.find((v: { outcome: string }) => v.outcome === "ran")).toEqual({
			path: "wide[12]/look",
			outcome: "ran",
			why: "the item changed (`item`)",
		});
		expect(out.output.at(-1)).toMatchObject({ item: "topic twelve", output: "seen: topic twelve" });
		// A new first item: every earlier item is found at its new place; only the new one plays.
		project.write(".pi/flows/wide.md", mapFlow(["topic zero", ...items.slice(0, 11)]));
		const moved = cli("run", "wide", "go", "--script", "wide.yaml", "--project", "--reuse", "--json");
		const after = JSON.parse(moved.stdout);
		expect(after.reuse).toMatchObject({ reused: 11, ran: 1 });
		expect(after.reuse.visits.find((v: { path: string }) => v.path === "wide[2]/look")).toMatchObject({
			outcome: "reused",
			from: "wide[1]/look",
		});
		expect(moved.stderr).toContain("✓ wide[2]/look · scout · reused from");
		expect(moved.stderr).toContain(" as wide[1]/look ");
	}, 120_000);

	it("refuses a run named that is not there, before anything runs", () => {
		const r = cli("run", "two", "q", "--script", "two.yaml", "--project", "--reuse=.pi/runs/nope");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("no run folder .pi/runs/nope");
	}, 120_000);
});

describe("effects: a writer, a check, a commit", () => {
	it("writes a reused writer's change again on the tree it started from; reruns a check whose script changed; always commits", () => {
		project.write(".pi/checks/test.sh", "#!/bin/sh\ntest -f out.txt && echo present\n");
		project.write(
			".pi/flows/make.md",
			`---\nname: make\ndescription: write, check, commit\ninput: string\nnodes:\n  - id: make\n    agent: worker\n    reads: [input]\n  - id: test\n    check: .pi/checks/test.sh\n  - id: message\n    agent: scout\n    reads: [input]\n  - id: commit\n    commit: message\n---\n\n## make\n\nWrite out.txt.\n\n## message\n\nA commit message.\n`,
		);
		project.write(
			"make.yaml",
			'turns:\n  make:\n    - call: write\n      args: { path: out.txt, content: "made\\n" }\n    - say: wrote it\n  message:\n    - say: add out.txt\n',
		);
		git("add", "-A");
		git("commit", "-q", "-m", "the make flow");
		const first = cli("run", "make", "go", "--script", "make.yaml", "--project");
		expect(first.code).toBe(0);
		expect(journal().find((e) => e.type === "visit_end" && e.path === "make")).toMatchObject({
			ended: { effect: { files: ["out.txt"], patch: expect.stringContaining("+made") } },
		});
		// Back on the tree the writer started from: its change is written again, the check is taken, the commit runs.
		git("checkout", "-q", "main");
		rmSync(join(project.cwd, "out.txt"), { force: true });
		const again = cli("run", "make", "go", "--script", "empty.yaml", "--project", "--reuse");
		expect(again.code).toBe(0);
		expect(again.stderr).toContain("✓ make · worker · reused from");
		expect(again.stderr).toContain("its change to 1 file written again");
		expect(again.stderr).toContain("✓ test · check · reused from");
		expect(again.stderr).toMatch(/✓ commit · commit · .* · ran: `commit` nodes always run/);
		expect(readFileSync(join(project.cwd, "out.txt"), "utf8")).toBe("made\n");

		// A changed script reruns the check; a starting tree the change does not fit reruns the writer.
		git("checkout", "-q", "main");
		rmSync(join(project.cwd, "out.txt"), { force: true });
		project.write(".pi/checks/test.sh", "#!/bin/sh\ntest -s out.txt && echo present\n");
		project.write("notes.md", "Herons changed.\n");
		const changed = cli("run", "make", "go", "--script", "make.yaml", "--project", "--reuse");
		expect(changed.code).toBe(0);
		expect(changed.stderr).toMatch(
			/✓ make · worker · scripted\/scripted · .* · ran: 1 file of the tree changed: notes\.md/,
		);
		expect(changed.stderr).toMatch(/✓ test · check · .* · ran: the check script changed/);
		expect(existsSync(join(project.cwd, "out.txt"))).toBe(true);
	}, 120_000);
});
