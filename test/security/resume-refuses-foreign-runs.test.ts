/**
 * Attack 1 (issue 21): a repository ships a run folder, `.pi/runs/9999-12-31_23-59-59-999-build/`, whose
 * snapshot runs a check script of its choosing. `pi-flows resume` picked it (folder names sort) and ran
 * it with no question asked. Attack 2's second half: a snapshot edited in place by a turn (pi's `write`
 * reaches the run folder) steered the next resume. Only a run this person made here, whose record is
 * unchanged, is ever resumed.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TempProject } from "../helpers/project.ts";
import { BUILD_FLOW, cleanup, cli, FAILING_SCRIPT, git, repo, runFolders } from "./helpers.ts";

afterAll(cleanup);

const FOREIGN = "9999-12-31_23-59-59-999-build";

/** A project with the build flow, an innocent test script, and one failed (resumable) run of its own. */
function projectWithRun(): { p: TempProject; run: string } {
	const p = repo();
	p.write(".pi/flows/build.md", BUILD_FLOW);
	p.write(".pi/checks/t.sh", "true\n");
	p.write("s.yaml", FAILING_SCRIPT);
	const r = cli(p, "run", "build", "go", "--script", "s.yaml", "--project");
	expect(r.code, r.stderr).toBe(1);
	const [run] = runFolders(p);
	return { p, run: join(p.cwd, ".pi", "runs", run) };
}

/** Rewrites a run's snapshot so a resume runs `touch <marker>` as the check and gets past `first`. */
function poison(runDir: string, marker: string): void {
	const path = join(runDir, "snapshot.json");
	const snap = JSON.parse(readFileSync(path, "utf8"));
	snap.scripts[".pi/checks/t.sh"] = `touch ${marker}\n`;
	snap.settings.script.text = "turns:\n  first:\n    - say: looked\n";
	writeFileSync(path, JSON.stringify(snap, null, 2));
}

describe("resume runs only a run this person made here", () => {
	it("a run folder a repository ships is never picked as the newest, and is refused by name", () => {
		const attacker = projectWithRun();
		const victim = projectWithRun();
		const marker = join(victim.p.cwd, "pwned");
		const shipped = join(victim.p.cwd, ".pi", "runs", FOREIGN);
		cpSync(attacker.run, shipped, { recursive: true });
		poison(shipped, marker);
		// The clone: the run folder is committed, as a repository would ship it.
		git(victim.p, "add", "-f", ".pi/runs");
		git(victim.p, "commit", "-qm", "ship a run");

		const newest = cli(victim.p, "resume");
		expect(newest.stderr).toContain(`resuming build in .pi/runs/${runFolders(victim.p).find((f) => f !== FOREIGN)}`);
		expect(newest.stderr).not.toContain(FOREIGN);
		expect(existsSync(marker)).toBe(false);

		const named = cli(victim.p, "resume", `.pi/runs/${FOREIGN}`);
		expect(named.code).toBe(2);
		expect(named.stderr).toMatch(/refused to resume: the run was made in .*, not here/);
		expect(existsSync(marker)).toBe(false);
	}, 240_000);

	it("a run folder made by another person's key is refused even at the same place", () => {
		const other = projectWithRun();
		const p = repo();
		p.write(".pi/flows/build.md", BUILD_FLOW);
		p.write(".pi/checks/t.sh", "true\n");
		// Same folder path as far as the seal goes: the other person's run is moved over this project's.
		const moved = join(p.cwd, ".pi", "runs", "x");
		cpSync(other.run, moved, { recursive: true });
		const seal = readFileSync(join(moved, "seal"), "utf8").split("\n");
		seal[0] = JSON.stringify({ ...JSON.parse(seal[0]), dir: moved });
		writeFileSync(join(moved, "seal"), seal.join("\n"));
		const r = cli(p, "resume", ".pi/runs/x");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("does not match its seal");
	}, 240_000);

	it("a snapshot edited after the run started (as a turn's `write` could) fails the seal and runs nothing", () => {
		const { p, run } = projectWithRun();
		const marker = join(p.cwd, "pwned");
		poison(run, marker);
		const r = cli(p, "resume", run);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("snapshot.json");
		expect(r.stderr).toContain("does not match its seal");
		expect(existsSync(marker)).toBe(false);
	}, 240_000);

	it("a journal line edited after it was written fails the seal", () => {
		const { p, run } = projectWithRun();
		const path = join(run, "journal.jsonl");
		// Forge the failure into one the flow "decided", or drop it: either way the record was changed.
		writeFileSync(path, readFileSync(path, "utf8").replace('"errorKind":"provider"', '"errorKind":"unavailable"'));
		const r = cli(p, "resume", run);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(/journal\.jsonl .* does not match its seal at line \d+/);
	}, 240_000);

	it("the person's own run still resumes (the seal is no obstacle to honest use)", () => {
		const { p, run } = projectWithRun();
		p.write("s.yaml", "turns:\n  first:\n    - say: looked\n");
		// The snapshot keeps its own script, so the resume fails the same way, but it does run: life 2.
		const r = cli(p, "resume", run);
		expect(r.stderr).toContain("resuming build");
		expect(readFileSync(join(run, "journal.jsonl"), "utf8")).toContain('"life":2');
	}, 240_000);
});
