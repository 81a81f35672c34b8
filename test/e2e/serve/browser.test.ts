/**
 * `pi-flows serve` as a person uses it: the real CLI serving a temp project, real runs of the real CLI on
 * the scripted model (slowed by the script's delays) started on a pseudo-terminal as a person starts them,
 * and Debian's headless Chromium driven over the DevTools protocol by playwright-core. The page follows a
 * run without a reload, answers its question (the terminal's prompt closes, the journal records the
 * answer once), stops a run as Ctrl-C would and resumes it, and is refused without the token.
 *
 * A node's "Rerun from here" shows the reuse preview `pi-flows plan --reuse --rerun-from` gives (the same
 * rows and figures), starts the rerun on confirmation and lands on the new run's page, which counts the
 * reused visits as saved; a node the flow file no longer has is refused in words.
 *
 * With PI_FLOWS_WRITE_SHOTS=1 the screenshots of the runs list and a run page are written to docs/web/.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { readJournal } from "../../../src/runs/index.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf } from "../../helpers/run.ts";
import { CHROMIUM, CHROMIUM_ARGS, chromiumPresent } from "../../helpers/chromium.ts";

const present = chromiumPresent;

/** What the page functions read of the page (the project's TypeScript has no DOM types). */
interface PageBody {
	document: { body: { dataset: Record<string, string | undefined> } };
}

const SLOW = flowOf(
	"slow",
	`  - id: plan
    agent: helper
    reads: [input]
  - id: work
    map: [north, south, east]
    concurrency: 2
    do:
      - id: act
        agent: helper
        reads: [item]
  - id: pick
    ask: "Which colour?"
    options: [red, blue]
    reads: [plan]
  - id: paint
    agent: helper
    reads: [pick]
`,
	{ plan: "Plan the painting of `input`.", act: "Survey `item`.", paint: "Paint in the colour under `pick`." },
);

const SLOW_SCRIPT = `turns:
  plan:
    - say: "the fence needs two coats"
      delay: 1500
  act:
    - say: "looking around"
      call: read
      args: { path: slow.yaml }
      delay: 600
    - say: "surveyed: all clear"
      delay: 600
  paint:
    - say: "painting it {{section:pick}}"
      delay: 400
`;

const LONG = flowOf(
	"long",
	`  - id: work
    map: [a, b, c, d]
    concurrency: 2
    do:
      - id: act
        agent: helper
        reads: [item]
  - id: wrap
    agent: helper
    reads: [work]
`,
	{ act: "Work on `item`.", wrap: "Sum up `work`." },
);

/** The first life crawls (the page stops it); a resume's life runs at once. */
const LONG_SCRIPT = `turns:
  act:
    - say: "working slowly"
      delay: 4000
  wrap:
    - say: "all four done"
`;

const TRI = flowOf(
	"tri",
	`  - id: look
    agent: helper
    reads: [input]
  - id: review
    agent: helper
    reads: [look]
  - id: answer
    agent: helper
    reads: [review]
`,
	{ look: "Look at `input`.", review: "Review `look`.", answer: "Answer from `review`." },
);

const TRI_SCRIPT = `turns:
  look:
    - say: "a fence of twelve boards"
  review:
    - say: "two boards are loose"
  answer:
    - say: "fix the two loose boards"
`;

const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;

describe.skipIf(!present)(
	`pi-flows serve in headless Chromium${present ? "" : " (skipped: no /usr/bin/chromium)"}`,
	() => {
		let project: TempProject;
		let server: ChildProcess;
		let url = "";
		let origin = "";
		let browser: Browser;
		let context: BrowserContext;
		let shots: string;
		const children: ChildProcess[] = [];

		/** A CLI run on a pseudo-terminal (util-linux `script`), as a person at a terminal starts it. */
		function startRun(
			flow: string,
			script: string,
		): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
			const command = [process.execPath, cliBin(), "run", flow, "the fence"]
				.concat(["--script", script, "--project"])
				.map(quote)
				.join(" ");
			const child = spawn("script", ["-qefc", command, "/dev/null"], {
				cwd: project.cwd,
				env: { ...project.env, TERM: "dumb" },
				stdio: ["pipe", "pipe", "pipe"],
			});
			children.push(child);
			let out = "";
			child.stdout?.on("data", (d: Buffer) => {
				out += d;
			});
			child.stderr?.on("data", (d: Buffer) => {
				out += d;
			});
			return { child, out: () => out, exit: new Promise((resolve) => child.once("exit", resolve)) };
		}

		const runsHome = () => join(project.cwd, ".pi", "runs");
		/** The run folder of the flow that appears after `before` folders were there. */
		async function newFolder(flow: string, before: string[]): Promise<string> {
			for (;;) {
				// A folder is a run once its snapshot is written (the run list shows no folder before that).
				const found = existsSync(runsHome())
					? readdirSync(runsHome()).filter(
							(n) => n.endsWith(`-${flow}`) && !before.includes(n) && existsSync(join(runsHome(), n, "snapshot.json")),
						)
					: [];
				if (found.length) return found[0];
				await new Promise((r) => setTimeout(r, 50));
			}
		}
		const folders = () => (existsSync(runsHome()) ? readdirSync(runsHome()) : []);
		/** Waits until the page shows the run in `status` (the page sets it on <body> from the server's view). */
		const statusIs = (page: Page, status: string, timeout = 60_000) =>
			page.waitForFunction(
				// A function, not a string: the page's CSP forbids evaluating strings. The project's types carry no DOM.
				(s) => (globalThis as unknown as PageBody).document.body.dataset.status === s,
				status,
				{ timeout },
			);
		/** An action posted from the page as its own script posts it; the status and the server's words. */
		const post = (page: Page, action: string, body: unknown) =>
			page.evaluate(`(async () => {
			const csrf = document.querySelector('meta[name="pi-flows-csrf"]').getAttribute("content");
			const r = await fetch(location.pathname.replace("/run/", "/api/run/") + "/${action}", {
				method: "POST",
				headers: { "content-type": "application/json", "x-pi-flows-csrf": csrf },
				body: ${JSON.stringify(JSON.stringify(body))},
			});
			return { status: r.status, body: await r.json() };
		})()`) as Promise<{ status: number; body: { said: string } }>;

		beforeAll(async () => {
			project = tempProject();
			project.write(".pi/agents/helper.md", agentFile("helper", "read"));
			project.write(".pi/flows/slow.md", SLOW);
			project.write(".pi/flows/long.md", LONG);
			project.write("slow.yaml", SLOW_SCRIPT);
			project.write("long.yaml", LONG_SCRIPT);
			project.write(".pi/flows/tri.md", TRI);
			project.write("tri.yaml", TRI_SCRIPT);
			shots = mkdtempSync(join(tmpdir(), "pi-flows-serve-shots-"));
			server = spawn(process.execPath, [cliBin(), "serve", "--project"], {
				cwd: project.cwd,
				env: project.env,
				stdio: ["ignore", "pipe", "pipe"],
			});
			url = await new Promise<string>((resolve, reject) => {
				let out = "";
				server.stdout?.on("data", (d: Buffer) => {
					out += d;
					const line = out.split("\n").find((l) => l.includes("?token="));
					if (line) resolve(line.trim());
				});
				server.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
			});
			origin = new URL(url).origin;
			browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
			context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
		}, 60_000);

		afterAll(async () => {
			await browser?.close();
			for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
			server?.kill("SIGTERM");
			if (process.env.PI_FLOWS_WRITE_SHOTS === "1") {
				const docs = join(PACKAGE_ROOT, "docs", "web");
				mkdirSync(docs, { recursive: true });
				for (const f of readdirSync(shots)) copyFileSync(join(shots, f), join(docs, f));
			}
			rmSync(shots, { recursive: true, force: true });
			project?.cleanup();
		});

		it("refuses a browser without the token, and a second use of the link's token", async () => {
			const stranger = await browser.newContext();
			try {
				const page = await stranger.newPage();
				const bare = await page.goto(`${origin}/`);
				expect(bare?.status()).toBe(401);
				expect(await page.textContent("body")).toContain("needs the token");
				const wrong = await page.goto(`${origin}/?token=not-the-token`);
				expect(wrong?.status()).toBe(403);
				const api = await page.goto(`${origin}/api/runs`);
				expect(api?.status()).toBe(401);
			} finally {
				await stranger.close();
			}
			// The person's browser trades the token for its cookie; the same link then works nowhere else.
			const page = await context.newPage();
			await page.goto(url);
			expect(new URL(page.url()).search).toBe("");
			await page.waitForSelector("table.runs");
			const late = await browser.newContext();
			try {
				const again = await (await late.newPage()).goto(url);
				expect(again?.status()).toBe(403);
			} finally {
				await late.close();
			}
			await page.close();
		});

		it("follows a slow run without a reload, answers its question, and sees the run finish", async () => {
			const page = await context.newPage();
			await page.goto(`${origin}/`);
			const before = folders();
			const run = startRun("slow", "slow.yaml");
			const id = await newFolder("slow", before);
			// The run appears in the list on its own; its link opens its page.
			await page.locator(`tr[data-run="${id}"] a`).click();
			await page.waitForURL(`**/run/folder/${id}`);
			let navigations = 0;
			page.on("framenavigated", (f) => {
				if (f === page.mainFrame()) navigations++;
			});
			// Every status the page shows from now on, and every state the ask node's shape goes through (the
			// graph is drawn again as counts change, so the whole graph is watched, not one shape).
			await page.waitForSelector('#graph [data-node="pick"]');
			await page.evaluate(`(() => {
				const statuses = [document.body.dataset.status];
				const pick = [];
				window.watched = { statuses, pick };
				new MutationObserver(() => {
					if (statuses.at(-1) !== document.body.dataset.status) statuses.push(document.body.dataset.status);
				}).observe(document.body, { attributes: true, attributeFilter: ["data-status"] });
				const graph = document.getElementById("graph");
				const look = () => {
					const s = graph.querySelector('[data-node="pick"]')?.getAttribute("data-state");
					if (s && pick.at(-1) !== s) pick.push(s);
				};
				look();
				new MutationObserver(look).observe(graph, { attributes: true, childList: true, subtree: true });
			})()`);
			await statusIs(page, "waiting");
			expect(await page.getAttribute('#graph [data-node="plan"]', "data-state")).toBe("done");
			expect(await page.getAttribute('#graph [data-node="work/act"]', "data-state")).toBe("done");
			expect(await page.textContent("#questions")).toContain("Which colour?");
			expect(await page.textContent("#questions")).toContain("two coats");
			await page.screenshot({ path: join(shots, "run-waiting.png"), fullPage: true });
			await page.locator("#questions button", { hasText: "blue" }).click();
			await statusIs(page, "ok");
			expect(await page.textContent("#outcome-body")).toContain("blue");
			// Without a reload: the ask went from running to done, and the run from running through waiting to
			// ended well, with no status on the way that the journal did not say (no transient "failed").
			expect(navigations).toBe(0);
			const watched = (await page.evaluate("window.watched")) as { statuses: string[]; pick: string[] };
			expect(watched.pick.slice(-2)).toEqual(["running", "done"]);
			expect(watched.statuses.at(-1)).toBe("ok");
			expect(watched.statuses).toContain("waiting");
			expect(watched.statuses.every((x) => ["running", "waiting", "ok"].includes(x))).toBe(true);
			await page.screenshot({ path: join(shots, "run.png"), fullPage: true });
			// The terminal's prompt was closed with where the answer came from, and the run ended well.
			expect(await run.exit).toBe(0);
			expect(run.out()).toContain("answered from the browser: blue");
			const journal = readJournal(join(runsHome(), id, "journal.jsonl"));
			if (!journal.ok) throw new Error(journal.error);
			expect(journal.entries.filter((e) => e.type === "asked")).toMatchObject([
				{ path: "pick", answer: { kind: "answer", value: "blue" } },
			]);
			// Answering again is refused in words: the run waits on no question any more.
			const again = await post(page, "answer", { life: 1, visit: "pick", answer: { kind: "answer", value: "red" } });
			expect(again.status).toBe(409);
			expect(again.body.said).toMatch(/waits on no question/);
			await page.goto(`${origin}/`);
			await page.waitForSelector(`tr[data-run="${id}"] .status-ok`);
			await page.screenshot({ path: join(shots, "runs.png"), fullPage: true });
			await page.close();
		}, 120_000);

		it("stops a run as Ctrl-C would, refuses a second stop, and resumes it to its end", async () => {
			const page = await context.newPage();
			const before = folders();
			const run = startRun("long", "long.yaml");
			const id = await newFolder("long", before);
			await page.goto(`${origin}/run/folder/${id}`);
			await page.waitForSelector("#turns .turn-running", { timeout: 60_000 });
			await page.waitForSelector("#lanes .bar.state-running");
			await page.screenshot({ path: join(shots, "run-running.png"), fullPage: true });
			await page.locator("#actions button.stop").click();
			await statusIs(page, "stopped");
			expect(await page.textContent("#said")).toContain("asked to stop");
			// The run's process landed and ended, failed as a stop (resumable), as after Ctrl-C.
			expect(await run.exit).toBe(1);
			const journal = readJournal(join(runsHome(), id, "journal.jsonl"));
			if (!journal.ok) throw new Error(journal.error);
			expect(journal.entries.filter((e) => e.type === "run_end")).toMatchObject([{ life: 1, ok: false }]);
			expect(await page.isDisabled("#actions button.stop")).toBe(true);
			const stopAgain = await post(page, "stop", {});
			expect(stopAgain.status).toBe(409);
			expect(stopAgain.body.said).toMatch(/nothing to stop/);
			// Resume through `pi-flows resume` itself: life 2 begins and runs the flow to its end.
			await page.locator("#actions button.resume").click();
			await statusIs(page, "ok", 90_000);
			expect(await page.textContent("#said")).toMatch(/resumed/);
			await page.waitForSelector("#outcome-body pre.answer");
			expect(await page.textContent("#outcome-body")).toContain("all four done");
			expect(await page.textContent("#facts")).toContain("2 (resumed)");
			await page.close();
		}, 180_000);

		it("reruns from a node: the preview as pi-flows plan --reuse says it, then the run, its reused visits saved", async () => {
			const cli = (...args: string[]) =>
				spawnSync(process.execPath, [cliBin(), ...args], {
					cwd: project.cwd,
					env: project.env,
					encoding: "utf8",
				});
			const before = folders();
			const first = cli("run", "tri", "the fence", "--script", "tri.yaml", "--project");
			expect(first.status, first.stderr).toBe(0);
			const id = await newFolder("tri", before);
			const page = await context.newPage();
			await page.goto(`${origin}/run/folder/${id}`);
			await statusIs(page, "ok");
			await page.locator('#nodes tr[data-node="review"] button.rerun-from').click();
			await page.waitForSelector("#rerun-body:not([hidden])", { timeout: 60_000 });
			const shown = (await page.evaluate(`[...document.querySelectorAll("#rerun-rows tr")].map((tr) => ({
				path: tr.dataset.path,
				status: tr.dataset.status,
				why: tr.children[2].textContent,
				tokens: tr.children[3].textContent,
			}))`)) as { path: string; status: string; why: string; tokens: string }[];
			const summary = await page.textContent("#rerun-summary");
			// The same run, planned at the terminal: the page's rows and figures are the command's.
			const dir = join(runsHome(), id);
			const planned = cli("plan", "tri", "--project", "--reuse", dir, "--rerun-from", "review", "--json");
			expect(planned.status, planned.stderr).toBe(0);
			const plan = JSON.parse(planned.stdout).reuse as {
				rows: { path: string; status: string; why?: string; tokens: number }[];
				savedTokens: number;
				mayTokens: number;
			};
			expect(shown).toEqual(
				plan.rows.map((r) => ({
					path: r.path,
					status: r.status,
					why: r.why ?? "",
					tokens: r.tokens.toLocaleString("en-US"),
				})),
			);
			expect(shown.map((r) => r.status)).toEqual(["reused", "runs", "may-change"]);
			const text = cli("plan", "tri", "--project", "--reuse", dir, "--rerun-from", "review").stdout;
			expect(text.trim().split("\n")).toContain(summary);
			expect(summary).toMatch(/^runs 1 of 3 visits, about [\d.k]+ tokens; 1 may change/);
			expect(await page.textContent("#rerun-command")).toContain("--rerun-from review");
			await page.screenshot({ path: join(shots, "rerun-preview.png"), fullPage: true });
			// Confirmed: the page goes to the new run, which plays review again and takes the rest.
			const made = folders();
			await page.locator("#rerun button.rerun-start").click();
			await page.waitForURL((u) => u.pathname.startsWith("/run/folder/") && !u.pathname.endsWith(id), {
				timeout: 60_000,
			});
			const rerun = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1) as string);
			expect(made).not.toContain(rerun);
			await statusIs(page, "ok");
			const saved = plan.savedTokens + plan.mayTokens;
			await page.waitForSelector('[data-fact="reused"]');
			expect(await page.textContent('[data-fact="reused"]')).toContain(
				`reused 2 of 3 visits (saved ${saved} tokens) from ${dir}`,
			);
			expect(await page.textContent('#nodes tr[data-node="look"]')).toContain("(saved");
			const usage = JSON.parse(readFileSync(join(runsHome(), rerun, "usage.json"), "utf8"));
			expect(usage.saved.totalTokens).toBe(saved);
			const result = JSON.parse(readFileSync(join(runsHome(), rerun, "result.json"), "utf8"));
			expect(result.reuse).toMatchObject({
				reused: 2,
				ran: 1,
				visits: [
					{ path: "look" },
					{ path: "review", why: "asked to run again (`review`)" },
					{ path: "answer", outcome: "reused" },
				],
			});
			await page.screenshot({ path: join(shots, "rerun-done.png"), fullPage: true });
			await page.goto(`${origin}/`);
			await page.waitForSelector(`tr[data-run="${rerun}"] .status-ok`);
			// The flow file edited so the node is gone: the preview is refused in words, and nothing runs.
			const file = join(project.cwd, ".pi/flows/tri.md");
			writeFileSync(
				file,
				TRI.replace("  - id: answer\n    agent: helper\n    reads: [review]\n", "").replace(/## answer[^#]*$/, ""),
			);
			try {
				await page.goto(`${origin}/run/folder/${id}`);
				await statusIs(page, "ok");
				const now = folders();
				await page.locator('#nodes tr[data-node="answer"] button.rerun-from').click();
				await page.waitForSelector("#rerun-said.refused", { timeout: 60_000 });
				expect(await page.textContent("#rerun-said")).toContain("tri has no node `answer` (as its file is now)");
				expect(await page.isHidden("#rerun-body")).toBe(true);
				expect(folders()).toEqual(now);
			} finally {
				writeFileSync(file, TRI);
			}
			await page.close();
		}, 180_000);
	},
);
