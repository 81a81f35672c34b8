import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Copy, createGitPort } from "../../../src/engine/ports/index.ts";
import { gitEnv, type TempRepo, tempRepo } from "./temp-repo.ts";

const port = createGitPort();
const repos: TempRepo[] = [];
const copies: Copy[] = [];

afterEach(async () => {
	for (const copy of copies.splice(0)) await port.release(copy);
	for (const repo of repos.splice(0)) repo.cleanup();
});

function repo(files: Record<string, string>): TempRepo {
	const made = tempRepo(files);
	repos.push(made);
	return made;
}

async function open(r: TempRepo, label: string): Promise<Copy> {
	const out = await port.openCopy(r.dir, label);
	if (!out.ok) throw new Error(out.message);
	copies.push(out.copy);
	return out.copy;
}

function edit(copy: Copy, path: string, text: string | Buffer): void {
	writeFileSync(join(copy.dir, path), text);
}

function inCopy(copy: Copy, args: string[]): string {
	return execFileSync("git", args, { cwd: copy.dir, env: gitEnv(), encoding: "utf8" }).trim();
}

const lines = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("opening a copy", () => {
	it("holds the tree as it stands, on its own branch, outside the repository, with the user's state untouched", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("a.txt", "edited\n");
		r.write("untracked.txt", "new\n");
		r.git(["add", "a.txt"]);
		const status = r.git(["status", "--porcelain", "--untracked-files=all"]);
		const index = r.index();
		const copy = await open(r, "work/fix #1");
		expect(r.index()).toEqual(index);
		expect(copy.branch).toMatch(/^pi-flows-copy\/work-fix-1-[0-9a-f]{6}$/);
		expect(relative(r.dir, copy.dir).startsWith("..")).toBe(true);
		expect(copy.dir.startsWith(tmpdir())).toBe(true);
		expect(readFileSync(join(copy.dir, "a.txt"), "utf8")).toBe("edited\n");
		expect(readFileSync(join(copy.dir, "untracked.txt"), "utf8")).toBe("new\n");
		expect(inCopy(copy, ["status", "--porcelain"])).toBe("");
		expect(inCopy(copy, ["rev-parse", "HEAD"])).toBe(copy.base);
		// The snapshot hangs off HEAD and is named by no branch of the user's.
		expect(r.git(["rev-parse", `${copy.base}^`])).toBe(r.git(["rev-parse", "main"]));
		expect(r.git(["branch", "--contains", copy.base, "--format=%(refname:short)"])).toBe(copy.branch);
		expect(r.git(["status", "--porcelain", "--untracked-files=all"])).toBe(status);
		expect(r.git(["stash", "list"])).toBe("");
	});

	it("opens several at once", async () => {
		const r = repo({ "a.txt": "a\n" });
		const out = await Promise.all(["x", "y", "z"].map((label) => port.openCopy(r.dir, label)));
		for (const o of out) if (o.ok) copies.push(o.copy);
		expect(out.every((o) => o.ok)).toBe(true);
		expect(new Set(copies.map((c) => c.dir)).size).toBe(3);
	});

	it("fails as a value outside a repository", async () => {
		const out = await port.openCopy(tmpdir(), "x");
		expect(out).toMatchObject({ ok: false });
	});
});

describe("landing copies", () => {
	it("lands two copies editing different files, in order, leaving the user's index alone", async () => {
		const r = repo({ "a.txt": "a\n", "b.txt": "b\n", "shared.txt": lines(20) });
		r.write("mine.txt", "uncommitted work of the run\n");
		const staged = r.git(["diff", "--cached", "--name-status"]);
		const first = await open(r, "first");
		const second = await open(r, "second");
		edit(first, "a.txt", "a from first\n");
		edit(first, "shared.txt", lines(20).replace("line 2\n", "line two\n"));
		edit(second, "b.txt", "b from second\n");
		edit(second, "shared.txt", lines(20).replace("line 19\n", "line nineteen\n"));
		writeFileSync(join(second.dir, "added.bin"), Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
		const index = r.index();
		expect(await port.land(r.dir, [first, second])).toEqual([{ landed: true }, { landed: true }]);
		expect(r.index()).toEqual(index);
		expect(r.read("a.txt")).toBe("a from first\n");
		expect(r.read("b.txt")).toBe("b from second\n");
		expect(r.read("shared.txt")).toBe(
			lines(20).replace("line 2\n", "line two\n").replace("line 19\n", "line nineteen\n"),
		);
		expect(readFileSync(join(r.dir, "added.bin"))).toEqual(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
		expect(r.read("mine.txt")).toBe("uncommitted work of the run\n");
		expect(r.git(["diff", "--cached", "--name-status"])).toBe(staged);
		expect(r.git(["rev-parse", "HEAD"])).toBe(r.git(["rev-parse", "main"]));
		// The work stays on each copy's branch too.
		expect(r.git(["show", `${first.branch}:a.txt`])).toBe("a from first");
	});

	it("refuses a copy whose patch conflicts, lists the file, and does not try the ones after it", async () => {
		const r = repo({ "f.txt": lines(9), "g.txt": "g\n" });
		const [a, b, c] = [await open(r, "a"), await open(r, "b"), await open(r, "c")];
		edit(a, "f.txt", lines(9).replace("line 5\n", "five from a\n"));
		edit(b, "f.txt", lines(9).replace("line 5\n", "five from b\n"));
		edit(c, "g.txt", "g from c\n");
		const index = r.index();
		const out = await port.land(r.dir, [a, b, c]);
		expect(r.index()).toEqual(index);
		expect(out[0]).toEqual({ landed: true });
		expect(out[1]).toMatchObject({ landed: false, refused: ["f.txt"] });
		expect(out[1].message).toBeTruthy();
		expect(out[2]).toMatchObject({ landed: false });
		expect(out[2].message).toMatch(/^not tried/);
		expect(r.read("f.txt")).toBe(lines(9).replace("line 5\n", "five from a\n"));
		expect(r.read("g.txt")).toBe("g\n");
		expect(r.git(["diff", "--cached", "--name-only"])).toBe("");
		expect(r.git(["status", "--porcelain"])).toBe("M f.txt");
	});

	it("refuses two copies adding the same file with different content", async () => {
		const r = repo({ "a.txt": "a\n" });
		const [a, b] = [await open(r, "a"), await open(r, "b")];
		edit(a, "new.txt", "from a\n");
		edit(b, "new.txt", "from b\n");
		const out = await port.land(r.dir, [a, b]);
		expect(out).toMatchObject([{ landed: true }, { landed: false, refused: ["new.txt"] }]);
		expect(r.read("new.txt")).toBe("from a\n");
	});

	it("counts a copy that changed nothing as landed", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("a.txt", "dirty before the copy\n");
		const copy = await open(r, "idle");
		expect(await port.land(r.dir, [copy])).toEqual([{ landed: true }]);
		expect(r.read("a.txt")).toBe("dirty before the copy\n");
	});

	it("lands what an agent committed inside the copy along with what it left uncommitted", async () => {
		const r = repo({ "a.txt": "a\n", "b.txt": "b\n" });
		const copy = await open(r, "agent");
		edit(copy, "a.txt", "committed\n");
		execFileSync("git", ["commit", "-qam", "agent commit"], {
			cwd: copy.dir,
			env: {
				...gitEnv(),
				GIT_AUTHOR_NAME: "x",
				GIT_AUTHOR_EMAIL: "x@x",
				GIT_COMMITTER_NAME: "x",
				GIT_COMMITTER_EMAIL: "x@x",
			},
		});
		edit(copy, "b.txt", "left uncommitted\n");
		expect(await port.land(r.dir, [copy])).toEqual([{ landed: true }]);
		expect([r.read("a.txt"), r.read("b.txt")]).toEqual(["committed\n", "left uncommitted\n"]);
	});
});

describe("releasing a copy", () => {
	it("removes the worktree and the branch of a copy that holds no work, and is idempotent", async () => {
		const r = repo({ "a.txt": "a\n" });
		const copy = await open(r, "gone");
		await expect(port.release(copy)).resolves.toBeUndefined();
		expect(existsSync(copy.dir)).toBe(false);
		expect(r.git(["branch", "--list", "pi-flows-copy/*"])).toBe("");
		expect(r.git(["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
		await expect(port.release(copy)).resolves.toBeUndefined();
	});

	it("keeps the branch of work that did not land, with that work committed on it (issue 21: work is never destroyed)", async () => {
		const r = repo({ "a.txt": "a\n" });
		const copy = await open(r, "unlanded");
		edit(copy, "a.txt", "unsaved\n");
		await expect(port.release(copy)).resolves.toBe(copy.branch);
		expect(existsSync(copy.dir)).toBe(false);
		expect(r.git(["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
		expect(r.git(["show", `${copy.branch}:a.txt`])).toBe("unsaved");
		// A second release keeps it too.
		await port.release(copy);
		expect(r.git(["branch", "--list", "pi-flows-copy/*", "--format=%(refname:short)"])).toBe(copy.branch);
	});

	it("deletes the branch once the copy's work landed", async () => {
		const r = repo({ "a.txt": "a\n" });
		const copy = await open(r, "landed");
		edit(copy, "a.txt", "landed\n");
		expect(await port.land(r.dir, [copy])).toEqual([{ landed: true }]);
		await expect(port.release(copy)).resolves.toBeUndefined();
		expect(r.git(["branch", "--list", "pi-flows-copy/*"])).toBe("");
	});

	it("still removes the branch when the copy's folder was deleted by someone else", async () => {
		const r = repo({ "a.txt": "a\n" });
		const copy = await open(r, "deleted");
		execFileSync("rm", ["-rf", copy.dir]);
		await port.release(copy);
		expect(r.git(["branch", "--list", "pi-flows-copy/*"])).toBe("");
		expect(r.git(["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
	});

	it("never deletes a branch it did not make", async () => {
		const r = repo({ "a.txt": "a\n" });
		await port.release({ dir: r.dir, branch: "main", base: r.git(["rev-parse", "HEAD"]) });
		expect(r.git(["rev-parse", "--verify", "main"])).toBeTruthy();
		expect(existsSync(r.dir)).toBe(true);
	});
});
