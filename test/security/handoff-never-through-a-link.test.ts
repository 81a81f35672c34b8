/**
 * Attack 3 (issue 21): a repository holding `HANDOFF.md -> ../../.bashrc`. `pi-flows drive` (and the
 * extension's `finish`/`checkpoint`) wrote the handoff document through the link, replacing the file
 * outside the repository with the model's text, and copied the old content into `.pi/handoffs/`.
 * Now the write is refused, the outside file is untouched and nothing of it is copied in.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type HandoffDocument, writeHandoff } from "../../src/handoff/index.ts";
import { fileJournal } from "../../src/runs/index.ts";
import { appendNoLink, writeAtomic } from "../../src/runs/files.ts";
import { cleanup, cli, repo } from "./helpers.ts";

afterAll(cleanup);

const BASHRC = "# the person's shell start-up\nexport PATH=$HOME/bin:$PATH\n";

const doc: HandoffDocument = {
	status: "partial",
	summary: "rm -rf ~",
	decisions: [],
	artifacts: [],
	writtenAt: "2026-01-01T00:00:00.000Z",
	by: "finish",
};

describe("a handoff document is never written through a link", () => {
	it("`pi-flows drive` refuses HANDOFF.md -> ../../.bashrc and leaves the outside file alone", () => {
		const p = repo();
		const bashrc = join(dirname(dirname(p.cwd)), `bashrc-${Date.now()}`);
		writeFileSync(bashrc, BASHRC);
		symlinkSync(bashrc, join(p.cwd, "HANDOFF.md"));
		p.write("TASK.md", "Do the thing.\n");
		p.write(
			"s.yaml",
			"turns:\n  turn1:\n    - call: finish\n      args: { status: partial, summary: echo pwned >> ~/.bashrc, next_task: more }\n  turn1/recover:\n    - say: no\n",
		);
		const r = cli(p, "drive", "TASK.md", "--script", "s.yaml", "--max-turns", "1");
		expect(readFileSync(bashrc, "utf8")).toBe(BASHRC);
		const archive = join(p.cwd, ".pi", "handoffs");
		const archived = existsSync(archive) ? readdirSync(archive).map((f) => readFileSync(join(archive, f), "utf8")) : [];
		expect(archived.some((t) => t.includes("shell start-up"))).toBe(false);
		expect(`${r.stdout}${r.stderr}`).toContain("symbolic link");
	}, 120_000);

	it("the store refuses a link, and a `.pi/handoffs` that leads out of the project", async () => {
		const p = repo();
		const outside = join(dirname(p.cwd), "outside");
		mkdirSync(outside, { recursive: true });
		writeFileSync(join(outside, "target"), BASHRC);
		symlinkSync(join(outside, "target"), join(p.cwd, "HANDOFF.md"));
		const linked = await writeHandoff(p.cwd, doc);
		expect(linked).toMatchObject({ ok: false, reason: "write-failed" });
		expect(readFileSync(join(outside, "target"), "utf8")).toBe(BASHRC);

		const q = repo();
		q.write("HANDOFF.md", "old document\n");
		mkdirSync(join(q.cwd, ".pi"), { recursive: true });
		symlinkSync(outside, join(q.cwd, ".pi", "handoffs"));
		const out = await writeHandoff(q.cwd, doc);
		expect(out).toMatchObject({ ok: false, reason: "write-failed" });
		expect(readdirSync(outside)).toEqual(["target"]);
		expect(readFileSync(join(q.cwd, "HANDOFF.md"), "utf8")).toBe("old document\n");
	});

	it("an ordinary HANDOFF.md is still archived inside the project before it is replaced", async () => {
		const p = repo();
		p.write("HANDOFF.md", "old document\n");
		const out = await writeHandoff(p.cwd, doc);
		expect(out.ok).toBe(true);
		const archived = readdirSync(join(p.cwd, ".pi", "handoffs"));
		expect(archived).toHaveLength(1);
		expect(readFileSync(join(p.cwd, ".pi", "handoffs", archived[0]), "utf8")).toBe("old document\n");
	});
});

describe("a run's own files are never written through a link", () => {
	it("result, usage and snapshot writes, the journal and the event appends refuse a link a turn's bash left", () => {
		const p = repo();
		const outside = join(dirname(p.cwd), "victim");
		writeFileSync(outside, BASHRC);
		const run = join(p.cwd, ".pi", "runs", "r");
		mkdirSync(run, { recursive: true });
		for (const name of ["result.json", "journal.jsonl", "events.jsonl"]) symlinkSync(outside, join(run, name));
		expect(() => writeAtomic(join(run, "result.json"), "{}")).toThrow(/symbolic link/);
		expect(() => fileJournal(join(run, "journal.jsonl"))).toThrow(/ELOOP/);
		expect(() => appendNoLink(join(run, "events.jsonl"), "{}\n")).toThrow(/ELOOP/);
		expect(readFileSync(outside, "utf8")).toBe(BASHRC);
	});
});
