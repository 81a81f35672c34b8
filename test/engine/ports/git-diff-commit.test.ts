import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGitPort, slugify } from "../../../src/engine/ports/index.ts";
import { type TempRepo, tempDir, tempRepo } from "./temp-repo.ts";

const port = createGitPort();
const repos: TempRepo[] = [];
const dirs: string[] = [];

afterEach(() => {
	for (const repo of repos.splice(0)) repo.cleanup();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(files?: Record<string, string>): TempRepo {
	const made = tempRepo(files);
	repos.push(made);
	return made;
}

/** What a person sees of their staging and tree. */
function seen(r: TempRepo): { status: string; staged: string } {
	return {
		status: r.git(["status", "--porcelain", "--untracked-files=all"]),
		staged: r.git(["diff", "--cached", "--name-status"]),
	};
}

describe("root", () => {
	it("gives the top from a subfolder, and undefined outside a repository", async () => {
		const r = repo({ "a/b.txt": "b\n" });
		expect(await port.root(join(r.dir, "a"))).toBe(r.dir);
		const outside = tempDir();
		dirs.push(outside);
		expect(await port.root(outside)).toBeUndefined();
	});
});

describe("diff", () => {
	it("shows modified and untracked files without changing what the user staged", async () => {
		const r = repo({ "kept.txt": "one\n", "staged.txt": "s\n" });
		r.write("kept.txt", "one\ntwo\n");
		r.write("new/untracked.txt", "fresh\n");
		r.write("staged.txt", "s2\n");
		r.git(["add", "staged.txt"]);
		const before = seen(r);
		const index = r.index();
		const out = await port.diff(r.dir);
		expect(r.index()).toEqual(index);
		expect(out.ok).toBe(true);
		if (!out.ok) return;
		expect(out.text).toContain("+two");
		expect(out.text).toContain("b/new/untracked.txt");
		expect(out.text).toContain("+fresh");
		expect(out.text).toContain("+s2");
		expect(seen(r)).toEqual(before);
		expect(before.staged).toBe("M\tstaged.txt");
	});

	it("cuts a long diff at maxBytes with a marker", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("big.txt", "line of text\n".repeat(2000));
		const out = await port.diff(r.dir, 500);
		expect(out.ok).toBe(true);
		if (!out.ok) return;
		const [head, marker] = out.text.split("\n[… diff cut at ");
		expect(Buffer.byteLength(head)).toBeLessThanOrEqual(500);
		expect(marker).toMatch(/^500 of more than 500 bytes\]\n$/);
		const whole = await port.diff(r.dir);
		expect(whole.ok && !whole.text.includes("diff cut")).toBe(true);
	});

	it("diffs against the empty tree before the first commit", async () => {
		const r = repo();
		r.write("first.txt", "hello\n");
		const out = await port.diff(r.dir);
		expect(out).toMatchObject({ ok: true });
		expect(out.ok && out.text).toContain("+hello");
		expect(r.git(["status", "--porcelain"])).toBe("?? first.txt");
	});

	it("fails as a value outside a repository", async () => {
		const outside = tempDir();
		dirs.push(outside);
		expect(await port.diff(outside)).toMatchObject({ ok: false });
	});
});

describe("commit", () => {
	it("opens the run's branch from a dirty tree and never commits on the user's branch", async () => {
		const r = repo({ "a.txt": "a\n" });
		const main = r.git(["rev-parse", "main"]);
		r.write("a.txt", "a2\n");
		r.write("b.txt", "b\n");
		const out = await port.commit(r.dir, { message: "Add b\n\n# kept as a heading", slug: "Add B: Ünïcode & more!" });
		expect(out).toMatchObject({ ok: true, committed: true, branch: "pi-flows/add-b-unicode-more" });
		if (!out.ok) return;
		expect(out.sha).toBe(r.git(["rev-parse", "HEAD"]));
		expect(r.git(["symbolic-ref", "--short", "HEAD"])).toBe("pi-flows/add-b-unicode-more");
		expect(r.git(["rev-parse", "main"])).toBe(main);
		expect(r.git(["status", "--porcelain"])).toBe("");
		expect(r.git(["log", "-1", "--format=%an <%ae>|%cn <%ce>"])).toBe(
			"pi-flows <pi-flows@localhost>|pi-flows <pi-flows@localhost>",
		);
		expect(r.git(["log", "-1", "--format=%B"])).toBe("Add b\n\n# kept as a heading");
		expect(r.git(["show", "--name-only", "--format=", "HEAD"])).toBe("a.txt\nb.txt");
	});

	it("puts a later commit on the same branch", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("a.txt", "1\n");
		const first = await port.commit(r.dir, { message: "one", slug: "work" });
		r.write("a.txt", "2\n");
		const second = await port.commit(r.dir, { message: "two", slug: "work", branch: "pi-flows/work" });
		expect(second).toMatchObject({ ok: true, committed: true, branch: "pi-flows/work" });
		expect(first.ok && second.ok && r.git(["rev-parse", "HEAD^"]) === first.sha).toBe(true);
	});

	it("fails rather than commit where HEAD moved, or on a branch that is not a run's", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("a.txt", "1\n");
		await port.commit(r.dir, { message: "one", slug: "work" });
		r.git(["switch", "-q", "main"]);
		r.write("a.txt", "on main\n");
		const main = r.git(["rev-parse", "main"]);
		const moved = await port.commit(r.dir, { message: "two", slug: "work", branch: "pi-flows/work" });
		expect(moved).toMatchObject({ ok: false, kind: "unavailable" });
		expect(!moved.ok && moved.message).toContain("git switch pi-flows/work");
		const theirs = await port.commit(r.dir, { message: "two", slug: "work", branch: "main" });
		expect(theirs).toMatchObject({ ok: false, kind: "unavailable" });
		expect(r.git(["rev-parse", "main"])).toBe(main);
		expect(r.git(["status", "--porcelain"])).toBe("M a.txt");
	});

	it("gives committed: false on a clean tree, with the branch opened", async () => {
		const r = repo({ "a.txt": "a\n" });
		const out = await port.commit(r.dir, { message: "nothing", slug: "clean" });
		expect(out).toEqual({ ok: true, committed: false, branch: "pi-flows/clean" });
		expect(r.git(["symbolic-ref", "--short", "HEAD"])).toBe("pi-flows/clean");
	});

	it("takes -2, -3 when the branch name is taken", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.git(["branch", "pi-flows/same"]);
		r.git(["branch", "pi-flows/same-2"]);
		const out = await port.commit(r.dir, { message: "m", slug: "same" });
		expect(out).toMatchObject({ ok: true, branch: "pi-flows/same-3" });
	});

	it("fails empty-message before asking git anything", async () => {
		const r = repo({ "a.txt": "a\n" });
		r.write("a.txt", "changed\n");
		const out = await port.commit(r.dir, { message: " \n\t", slug: "empty" });
		expect(out).toMatchObject({ ok: false, kind: "empty-message" });
		expect(r.git(["symbolic-ref", "--short", "HEAD"])).toBe("main");
		expect(r.git(["branch", "--list", "pi-flows/*"])).toBe("");
	});

	it("is unavailable with the hook's words when a pre-commit hook refuses", async () => {
		const r = repo({ "a.txt": "a\n" });
		mkdirSync(join(r.dir, ".git/hooks"), { recursive: true });
		r.write(".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed: a.txt has tabs' >&2\nexit 1\n");
		chmodSync(join(r.dir, ".git/hooks/pre-commit"), 0o755);
		const main = r.git(["rev-parse", "main"]);
		r.write("a.txt", "\ttab\n");
		const out = await port.commit(r.dir, { message: "tabs", slug: "hooked" });
		expect(out).toMatchObject({ ok: false, kind: "unavailable", branch: "pi-flows/hooked" });
		expect(!out.ok && out.message).toContain("lint failed: a.txt has tabs");
		expect(r.git(["rev-parse", "main"])).toBe(main);
		expect(r.git(["rev-parse", "pi-flows/hooked"])).toBe(main);
	});

	it("commits the first time in a repository with no commit yet", async () => {
		const r = repo();
		r.write("a.txt", "a\n");
		const out = await port.commit(r.dir, { message: "first", slug: "start" });
		expect(out).toMatchObject({ ok: true, committed: true, branch: "pi-flows/start" });
		expect(r.git(["branch", "--list"])).toBe("* pi-flows/start");
		expect(r.git(["log", "--format=%s"])).toBe("first");
	});
});

describe("slugify", () => {
	it("keeps [a-z0-9-], at most 40 characters, never empty", () => {
		expect(slugify("Fix the LOGIN page — now!")).toBe("fix-the-login-page-now");
		expect(slugify(`${"x".repeat(39)}-yz`)).toBe("x".repeat(39));
		expect(slugify('{"goal":"ship"}')).toBe("goal-ship");
		expect(slugify("日本語")).toBe("run");
	});
});
