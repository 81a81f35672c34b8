import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stopReason, timeoutReason } from "../../../src/runtime/abort.ts";
import { type CheckOutcome, createBashCheck, REPORT_BYTES, scriptPath } from "../../../src/engine/ports/index.ts";
import { alive, tempDir } from "./temp-repo.ts";

const GRACE = 300;
const check = createBashCheck({ graceMs: GRACE });
let root = "";
const made: string[] = [];

afterEach(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
	root = "";
});

function folder(): string {
	const dir = tempDir();
	made.push(dir);
	return dir;
}

/** A project folder with one script at `.pi/checks/<name>`. */
function project(script: string, name = "check.sh"): { root: string; script: string } {
	root = folder();
	mkdirSync(join(root, ".pi/checks"), { recursive: true });
	writeFileSync(join(root, ".pi/checks", name), script);
	return { root, script: `.pi/checks/${name}` };
}

function run(script: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CheckOutcome> {
	const p = project(script);
	return check.run({
		...p,
		cwd: p.root,
		timeoutMs: extra.timeoutMs ?? 10_000,
		...(extra.signal ? { signal: extra.signal } : {}),
	});
}

function pid(file: string): number {
	return Number(readFileSync(join(root, file), "utf8").trim());
}

describe("a check's result", () => {
	it("passes on exit 0, with $0 the script's path and cwd the tree", async () => {
		const out = await run('echo "hello from $0 in $(pwd)"');
		expect(out).toMatchObject({ ok: true, passed: true, exitCode: 0 });
		if (out.ok) expect(out.report).toBe(`hello from .pi/checks/check.sh in ${root}\n`);
	});

	it("is a red value, not a failure, on a non-zero exit", async () => {
		const out = await run("echo broken >&2; exit 3");
		expect(out).toMatchObject({ ok: true, passed: false, exitCode: 3, report: "broken\n" });
	});

	it("runs the snapshotted content rather than the file", async () => {
		const p = project("exit 1");
		const out = await check.run({ ...p, cwd: p.root, timeoutMs: 10_000, content: "echo snapshot" });
		expect(out).toMatchObject({ ok: true, passed: true, report: "snapshot\n" });
	});

	it("is unavailable when the script is missing or bash cannot start in the tree", async () => {
		const p = project("true");
		const missing = await check.run({ root: p.root, cwd: p.root, script: ".pi/checks/nope.sh", timeoutMs: 10_000 });
		expect(missing).toMatchObject({ ok: false, kind: "unavailable" });
		const noTree = await check.run({ ...p, cwd: join(p.root, "gone"), timeoutMs: 10_000 });
		expect(noTree).toMatchObject({ ok: false, kind: "unavailable" });
	});

	it("ends a script that reads stdin, because stdin is closed", async () => {
		const out = await run('cat; read -r line; echo "read gave $?"', { timeoutMs: 5000 });
		expect(out).toMatchObject({ ok: true, passed: true, report: "read gave 1\n" });
	});
});

describe("a check's process group", () => {
	it("is killed on timeout, a background child included, within timeout + grace", async () => {
		const started = performance.now();
		const out = await run("echo $$ > leader.pid; (sleep 1000 & echo $! > child.pid; wait) & sleep 1000", {
			timeoutMs: 1000,
		});
		const took = performance.now() - started;
		expect(out).toMatchObject({ ok: false, kind: "timeout", message: "timed out after 1s" });
		expect(took).toBeLessThan(1000 + GRACE + 1500);
		expect(alive(process.pid)).toBe(true);
		expect(alive(pid("leader.pid"))).toBe(false);
		expect(alive(pid("child.pid"))).toBe(false);
	});

	it("gets SIGKILL after the grace when it ignores SIGTERM", async () => {
		const started = performance.now();
		const out = await run("trap '' TERM; echo $$ > leader.pid; while :; do sleep 0.05; done", { timeoutMs: 300 });
		expect(out).toMatchObject({ ok: false, kind: "timeout" });
		expect(performance.now() - started).toBeGreaterThanOrEqual(300 + GRACE - 50);
		expect(alive(pid("leader.pid"))).toBe(false);
	});

	it("is killed when the script ends, so a background child does not outlive it", async () => {
		const out = await run("sleep 1000 & echo $! > child.pid; echo done");
		expect(out).toMatchObject({ ok: true, passed: true, report: "done\n" });
		expect(alive(pid("child.pid"))).toBe(false);
	});

	it("comes back even when a process that left the group keeps the output open", async () => {
		const started = performance.now();
		// The pause lets setsid move sleep to its own session before the script ends and the group dies.
		const out = await run("setsid sleep 30 & echo $! > escaped.pid; sleep 0.3; echo done");
		try {
			expect(out).toMatchObject({ ok: true, passed: true, report: "done\n" });
			expect(alive(pid("escaped.pid"))).toBe(true);
			expect(performance.now() - started).toBeLessThan(300 + GRACE + 3000);
		} finally {
			process.kill(pid("escaped.pid"), "SIGKILL");
		}
	});

	it("is killed when the signal aborts: stopped, or timeout for a TimeoutError reason", async () => {
		const stop = new AbortController();
		setTimeout(() => stop.abort(stopReason()), 300);
		const stopped = await run("echo $$ > leader.pid; echo started; sleep 1000", { signal: stop.signal });
		expect(stopped).toMatchObject({ ok: false, kind: "stopped", report: "started\n" });
		expect(alive(pid("leader.pid"))).toBe(false);

		const deadline = new AbortController();
		setTimeout(() => deadline.abort(timeoutReason(120_000)), 300);
		const late = await run("sleep 1000", { signal: deadline.signal });
		expect(late).toMatchObject({ ok: false, kind: "timeout", message: "timed out after 2m" });
	});

	it("never starts under a signal already aborted", async () => {
		const out = await run("touch ran", { signal: AbortSignal.abort(stopReason()) });
		expect(out).toMatchObject({ ok: false, kind: "stopped" });
		expect(existsSync(join(root, "ran"))).toBe(false);
	});
});

describe("a check's report", () => {
	it("keeps stdout and stderr in the order they arrived", async () => {
		const out = await run("echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three");
		expect(out).toMatchObject({ ok: true, report: "one\ntwo\nthree\n" });
	});

	it("keeps the last bytes, cut on a character boundary, with the count of bytes cut", async () => {
		// 2 × 10000 bytes of "é" then 5 more: the last 8000 bytes start inside an "é", which is skipped.
		const out = await run("for i in $(seq 10000); do printf 'é'; done; printf '\\nEND\\n'");
		expect(out.ok).toBe(true);
		const total = 20_005;
		const kept = REPORT_BYTES - 1;
		expect(out.report).toBe(`[… ${total - kept} bytes cut]\n${"é".repeat(3997)}\nEND\n`);
	});
});

describe("a check's path", () => {
	it("refuses a path that leaves the repository, absolute or by ..", () => {
		const p = project("true");
		expect(scriptPath(p.root, "../x.sh")).toMatchObject({ ok: false, reason: "outside" });
		expect(scriptPath(p.root, "/bin/true")).toMatchObject({ ok: false, reason: "outside" });
		expect(scriptPath(p.root, ".pi/../../x.sh")).toMatchObject({ ok: false, reason: "outside" });
		expect(scriptPath(p.root, "nope.sh")).toMatchObject({ ok: false, reason: "missing" });
		expect(scriptPath(p.root, p.script)).toEqual({ ok: true, path: join(p.root, p.script) });
	});

	it("refuses a symlink pointing outside and never runs it; accepts one pointing inside", async () => {
		const outside = folder();
		writeFileSync(join(outside, "evil.sh"), "touch escaped");
		const p = project("echo inside");
		symlinkSync(join(outside, "evil.sh"), join(p.root, ".pi/checks/evil.sh"));
		symlinkSync(join(outside), join(p.root, ".pi/linked"));
		symlinkSync(join(p.root, p.script), join(p.root, ".pi/checks/alias.sh"));
		expect(scriptPath(p.root, ".pi/checks/evil.sh")).toMatchObject({ ok: false, reason: "outside" });
		expect(scriptPath(p.root, ".pi/linked/evil.sh")).toMatchObject({ ok: false, reason: "outside" });
		expect(scriptPath(p.root, ".pi/checks/alias.sh")).toMatchObject({ ok: true });
		const out = await check.run({ root: p.root, cwd: p.root, script: ".pi/checks/evil.sh", timeoutMs: 10_000 });
		expect(out).toMatchObject({ ok: false, kind: "unavailable" });
		expect(existsSync(join(p.root, "escaped"))).toBe(false);
	});
});
