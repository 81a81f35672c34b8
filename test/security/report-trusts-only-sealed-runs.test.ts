/**
 * Hole 6 (issue 28): `pi-flows report` with no run named trusted a shipped run folder (the newest by name,
 * no seal check), and `life` from an unsealed record went into the page unescaped: an injected
 * `<meta http-equiv=refresh>` navigated Chromium to another address despite the CSP, and `<style>` rewrote
 * the page. Unsealed is untrusted everywhere: `report` picks only sealed runs (a named unsealed one is
 * reported and says so), the page escapes every value it prints, and `plan`'s forecast reads only sealed
 * runs. The page is loaded in Debian's headless Chromium, as a person would open it.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../helpers/project.ts";
import { cleanup, cli, repo, runFolders } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const run = promisify(execFile);
const FOREIGN = "9999-12-31_23-59-59-999-explore";
const SCRIPT = "turns:\n  '*':\n    - say: looked\n";

let landed: string;
let scratch: string;
/** A run folder made by another person's pi-flows, then edited: what a repository would ship. */
let shipped: string;

beforeAll(() => {
	scratch = mkdtempSync(join(tmpdir(), "pi-flows-report-attack-"));
	landed = join(scratch, "landed.html");
	writeFileSync(landed, "<!doctype html><title>landed</title><p>NAVIGATED AWAY</p>");
	const attacker = repo();
	attacker.write("s.yaml", SCRIPT);
	expect(cli(attacker, "run", "explore", "q", "--script", "s.yaml").code).toBe(0);
	shipped = join(attacker.cwd, ".pi", "runs", runFolders(attacker)[0]);
	const meta = `<meta http-equiv="refresh" content="0;url=file://${landed}">`;
	const style = "<style>body{display:none}</style>";
	// Every line of its journal and its usage.json made to carry markup where a number belongs.
	const journal = join(shipped, "journal.jsonl");
	const lines = readFileSync(journal, "utf8").trim().split("\n");
	writeFileSync(
		journal,
		`${lines
			.map((l, i) => {
				const e = JSON.parse(l) as Record<string, unknown>;
				if ("life" in e) e.life = i % 2 ? style : meta;
				if (e.type === "visit_end") (e.usage as { cost: number }).cost = 999;
				return JSON.stringify(e);
			})
			.join("\n")}\n`,
	);
	const usage = JSON.parse(readFileSync(join(shipped, "usage.json"), "utf8"));
	usage.lives = [{ life: meta, startedAt: style, usage: usage.total, end: style }];
	for (const v of usage.visits) v.life = meta;
	writeFileSync(join(shipped, "usage.json"), JSON.stringify(usage));
});
afterAll(() => {
	cleanup();
	rmSync(scratch, { recursive: true, force: true });
});

/** A project of the person's with one run of their own, and the shipped folder committed beside it. */
function victim(ownRun: boolean): TempProject {
	const p = repo();
	p.write("s.yaml", SCRIPT);
	if (ownRun) expect(cli(p, "run", "explore", "q", "--script", "s.yaml").code).toBe(0);
	cpSync(shipped, join(p.cwd, ".pi", "runs", FOREIGN), { recursive: true });
	return p;
}

describe("`pi-flows report` reads only this person's runs unless told", () => {
	it("with no run named, it reports the person's own run, never the shipped one that sorts last", () => {
		const p = victim(true);
		const own = runFolders(p).find((f) => f !== FOREIGN) as string;
		const r = cli(p, "report");
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout.trim()).toBe(`.pi/runs/${own}/report.html`);
		expect(existsSync(join(p.cwd, ".pi", "runs", FOREIGN, "report.html"))).toBe(false);
	}, 120_000);

	it("with only shipped runs, it reports none, says how many it skipped and how to report one anyway", () => {
		const p = victim(false);
		const r = cli(p, "report");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("no run of yours under .pi/runs (1 run folder was skipped");
		expect(r.stderr).toContain("name a run folder to report it anyway");
	}, 120_000);

	it("`plan`'s forecast counts the person's runs only", () => {
		const p = victim(true);
		const r = cli(p, "plan", "explore");
		expect(r.stdout).toContain("observed in 1 earlier run(s)");
		expect(r.stdout).not.toContain("$999");
	}, 120_000);
});

describe.skipIf(!existsSync(CHROMIUM))("a shipped run named on purpose, in headless Chromium", () => {
	let dom = "";
	let stderr = "";
	beforeAll(async () => {
		const p = victim(false);
		const out = join(scratch, "report.html");
		const r = cli(p, "report", `.pi/runs/${FOREIGN}`, "--out", out);
		expect(r.code, r.stderr).toBe(0);
		stderr = r.stderr;
		const profile = mkdtempSync(join(tmpdir(), "pi-flows-chromium-"));
		try {
			const flags = [
				"--headless",
				"--no-sandbox",
				"--disable-gpu",
				"--no-first-run",
				"--disable-background-networking",
			];
			// Long enough for a refresh of 0 s to have happened: the page would be the landed one by now.
			const args = [
				...flags,
				`--user-data-dir=${profile}`,
				"--virtual-time-budget=3000",
				"--dump-dom",
				`file://${out}`,
			];
			dom = (await run(CHROMIUM, args, { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 })).stdout;
		} finally {
			rmSync(profile, { recursive: true, force: true });
		}
	}, 180_000);

	it("is reported, saying on the page and on stderr that its seal does not check", () => {
		expect(stderr).toContain(`.pi/runs/${FOREIGN} is repository content that pi-flows did not make here`);
		expect(dom).toContain("is repository content that pi-flows did not make here");
	});

	it("stays on the report: the injected refresh is text, not an element", () => {
		expect(dom).not.toContain("NAVIGATED AWAY");
		expect(dom).toContain("pi-flows report");
		expect(dom).not.toMatch(/<meta http-equiv="refresh"/i);
		expect(dom).toContain("&lt;meta http-equiv=");
	});

	it("keeps its own style: the injected <style> is text", () => {
		expect(dom.match(/<style[\s>]/g) ?? []).toHaveLength(1);
		expect(dom).toContain("&lt;style&gt;body{display:none}&lt;/style&gt;");
	});
});
