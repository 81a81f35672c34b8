/**
 * The tree a visit saw and the change it made, on a real repository: committed, staged, unstaged and
 * untracked files all count, the paths left out do not, the person's index is never touched, and a change
 * recorded as a pair of trees and their patch is written again exactly (binary files and deletions too).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyChange, changeBetween, filesBetween, treeOf } from "../../../src/engine/ports/git-tree.ts";

let repo: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
const write = (path: string, text: string | Buffer) => {
	mkdirSync(join(repo, path, ".."), { recursive: true });
	writeFileSync(join(repo, path), text);
};
const tree = async (leaveOut: string[] = []) => {
	const t = await treeOf(repo, leaveOut);
	if (!t.ok) throw new Error(t.message);
	return t.tree;
};

beforeAll(() => {
	repo = mkdtempSync(join(tmpdir(), "pi-flows-tree-"));
	git("init", "-q");
	write("a.txt", "one\n");
	write(".gitignore", "ignored/\n");
	git("add", "-A");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("the tree of a visit", () => {
	it("counts working and untracked changes, never ignored or left-out paths, and leaves the index alone", async () => {
		const first = await tree();
		expect(first).toBe(git("rev-parse", "HEAD^{tree}"));
		write("ignored/x.txt", "not seen\n");
		expect(await tree()).toBe(first);
		write(".pi/flows/f.md", "a flow\n");
		const withFlow = await tree();
		expect(withFlow).not.toBe(first);
		expect(await tree([".pi/flows"])).toBe(first);
		write("b.txt", "untracked\n");
		const withB = await tree([".pi/flows"]);
		expect(withB).not.toBe(first);
		expect(git("status", "--porcelain")).toContain("?? b.txt");
		expect(git("diff", "--cached", "--name-only")).toBe("");
		expect(await filesBetween(repo, first, withB)).toEqual(["b.txt"]);
		rmSync(join(repo, "b.txt"));
		rmSync(join(repo, ".pi"), { recursive: true });
		rmSync(join(repo, "ignored"), { recursive: true });
	});

	it("records a change as a pair of trees and a patch, and writes it again exactly", async () => {
		const before = await tree();
		write("a.txt", "one\ntwo\n");
		write("bin.dat", Buffer.from([0, 1, 2, 255, 254, 0, 7]));
		rmSync(join(repo, ".gitignore"));
		const after = await tree();
		const change = await changeBetween(repo, before, after);
		if (!change.ok) throw new Error(change.message);
		expect(change.files.sort()).toEqual([".gitignore", "a.txt", "bin.dat"]);
		// Back to the starting tree, then the change written again gives the same tree.
		git("checkout", "--", "a.txt", ".gitignore");
		rmSync(join(repo, "bin.dat"));
		expect(await tree()).toBe(before);
		expect((await applyChange(repo, { before, after, patch: change.patch })).ok).toBe(true);
		expect(await tree()).toBe(after);
		expect(readFileSync(join(repo, "bin.dat"))).toEqual(Buffer.from([0, 1, 2, 255, 254, 0, 7]));
		expect(existsSync(join(repo, ".gitignore"))).toBe(false);
		// Taken back out, and refused whole on a tree it does not fit.
		expect((await applyChange(repo, { before, after, patch: change.patch }, true)).ok).toBe(true);
		expect(await tree()).toBe(before);
		write("a.txt", "something else\n");
		const refused = await applyChange(repo, { before, after, patch: change.patch });
		expect(refused.ok).toBe(false);
		expect(existsSync(join(repo, "bin.dat"))).toBe(false);
		// Without a patch, the pair of trees still in the repository makes it.
		git("checkout", "--", "a.txt");
		expect((await applyChange(repo, { before, after })).ok).toBe(true);
		expect(await tree()).toBe(after);
	});

	it("is a value, not a throw, outside a repository", async () => {
		const out = await treeOf(tmpdir());
		expect(out.ok).toBe(false);
	});
});
