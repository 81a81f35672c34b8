/**
 * Hole 2 (issue 28): `pi-flows drive TASK.md` continued a drive record the repository shipped, and wrote
 * through its links. A shipped `.pi/drive/current.json` (its `logDir`, the sha of the shipped TASK.md) and
 * `.pi/drive/x/turn-1.json -> ../../../../victim`: drive said `resuming: 0 turn(s) recorded` and replaced the
 * file outside the project with the turn's JSON (for a clone in `~/repo`, that is `~/.bashrc`). The drive's
 * records are now sealed with the person's run key, read only when the seal checks, and written with the
 * safe writers (src/fs-safe) that never follow a link or leave their roots.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, repo } from "./helpers.ts";

afterAll(cleanup);

const TASK = "Tidy the notes.\n";
const BASHRC = "# the person's shell start-up\n";
const SCRIPT = "turns:\n  turn1:\n    - call: finish\n      args: { status: done, summary: tidied }\n";

describe("a drive record the repository ships is never continued, and no record is written through a link", () => {
	it("a shipped current.json and a turn file linked out of the project: refused as unsealed, the outside file untouched", () => {
		const p = repo();
		const victim = join(dirname(p.cwd), "victim");
		writeFileSync(victim, BASHRC);
		p.write("TASK.md", TASK);
		p.write("s.yaml", SCRIPT);
		const sha = createHash("sha256").update(TASK.trim()).digest("hex").slice(0, 16);
		p.write(".pi/drive/current.json", JSON.stringify({ logDir: ".pi/drive/x", taskSha: sha }));
		p.write(
			".pi/drive/x/journal.jsonl",
			`${JSON.stringify({ type: "drive_start", life: 1, task: TASK, taskSha: sha, at: "2026-01-01T00:00:00.000Z", pid: 1 })}\n`,
		);
		symlinkSync("../../../../victim", join(p.cwd, ".pi/drive/x/turn-1.json"));
		const r = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1");
		expect(readFileSync(victim, "utf8")).toBe(BASHRC);
		expect(r.stderr).not.toContain("resuming");
		expect(r.stderr).toContain(".pi/drive/current.json is repository content that pi-flows did not make here");
		// The drive itself ran, in a folder of its own, and its records are its own.
		expect(r.code, r.stderr).toBe(0);
		const folders = readdirSync(join(p.cwd, ".pi/drive")).filter((f) => f !== "x" && f !== "current.json");
		expect(folders).toHaveLength(1);
		expect(readdirSync(join(p.cwd, ".pi/drive", folders[0]))).toEqual(
			expect.arrayContaining(["drive.json", "journal.jsonl", "seal", "turn-1.json"]),
		);
		// Run again, the person's own sealed record is found: the drive is complete, nothing runs.
		const again = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1");
		expect(again.stderr).toContain("already completed");
	}, 120_000);

	it("a `.pi/drive` that links out of the project is refused before anything is written", () => {
		const p = repo();
		const outside = join(dirname(p.cwd), "outside-drive");
		mkdirSync(outside, { recursive: true });
		mkdirSync(join(p.cwd, ".pi"), { recursive: true });
		symlinkSync(outside, join(p.cwd, ".pi", "drive"));
		p.write("TASK.md", TASK);
		p.write("s.yaml", SCRIPT);
		const r = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("pi-flows never writes there on a repository's say-so");
		expect(readdirSync(outside)).toEqual([]);
		expect(existsSync(join(p.cwd, "HANDOFF.md"))).toBe(false);
	}, 120_000);
});
