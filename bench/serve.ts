/**
 * `pi-flows serve` under load, in a real browser (Debian's Chromium over the DevTools protocol):
 *
 *   load    the page of a running run with 1,000 visits (a map of 1,000 items, its journal and events as a
 *           run folder's recorder writes them), from navigation to the view drawn; beside it a 10-visit run
 *   follow  50 events a second appended to that run for 10 s (turns starting, tool calls, messages, visits
 *           ending, as a run writes them): for each write, how long until the page showed it
 *
 * Targets: the 1,000-visit page in at most 1 s; following never falls behind (every write shown, p95 lag
 * well under a second, and the lag at the end no larger than at the start).
 *
 *   node bench/serve.ts [--visits 1000] [--rate 50] [--seconds 10] [--json]
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { loadRoster } from "../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../src/load/index.ts";
import { snapshotOf, writeSnapshot } from "../src/runs/index.ts";
import { emptyUsage } from "../src/runtime/usage.ts";
import { startServer } from "../src/serve/index.ts";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/helpers/chromium.ts";

/** What the page functions read of the page (the project's TypeScript has no DOM types). */
interface PageBody {
	document: { body: { dataset: Record<string, string | undefined> } };
}

const arg = (name: string, fallback: number) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const VISITS = arg("visits", 1000);
const RATE = arg("rate", 50);
const SECONDS = arg("seconds", 10);

const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-serve-"));
const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
const home = join(root, "project", ".pi", "runs");
mkdirSync(home, { recursive: true });

/** A run folder whose map of `n` items all ran but the last few, as a live run's recorder leaves it. */
function makeRun(name: string, n: number): string {
	const items = Array.from({ length: n }, (_, i) => `i${i}`);
	const text = `---\nname: ${name}\ndescription: bench\ninput: string\nnodes:\n  - id: work\n    map: [${items.join(", ")}]\n    concurrency: 8\n    do:\n      - id: act\n        agent: scout\n  - id: last\n    agent: synthesiser\n---\n\n## act\n\nAct.\n\n## last\n\nSum up.\n`;
	const roster = loadRoster(root, {}, env);
	const checked = checkFlowText(text, join(root, `${name}.md`), roster, catalogueOptions(root, {}, env));
	if (!checked.value) throw new Error("the bench flow does not check");
	const dir = join(home, `2026-01-01_00-00-00-000-${name}`);
	mkdirSync(dir);
	writeSnapshot(dir, snapshotOf(checked.value, "go", new Map(), { cwd: root, somebodyThere: false }));
	writeFileSync(join(dir, "lock.json"), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: "" }));
	const t0 = Date.now() - n * 100;
	const at = (k: number) => new Date(t0 + k * 100).toISOString();
	const usage = { ...emptyUsage(), input: 200, output: 20, totalTokens: 220, requests: 1, ms: 700 };
	const journal = [{ type: "life_start", life: 1, at: at(0), pid: process.pid, host: hostname() }];
	const events: unknown[] = [{ type: "run_start", flow: name, input: "go", at: t0, life: 1 }];
	journal.push({ type: "visit_start", life: 1, path: "work", node: "work", kind: "map", at: at(0) } as never);
	for (let i = 1; i <= n; i++) {
		const path = `work[${i}]/act`;
		const e = { path, node: "act", kind: "agent", agent: "scout" };
		journal.push({ type: "visit_start", life: 1, ...e, at: at(i) } as never);
		events.push({ type: "node_start", ...e, life: 1, at: at(i) });
		events.push({
			type: "turn_start",
			path,
			agent: "scout",
			model: "scripted/scripted",
			subagent: `s${i}`,
			life: 1,
			at: at(i),
		});
		events.push({
			type: "tool_call",
			path,
			agent: "scout",
			subagent: `s${i}`,
			tool: "read",
			args: { path: "README.md" },
			life: 1,
			at: at(i),
		});
		events.push({
			type: "message",
			path,
			agent: "scout",
			subagent: `s${i}`,
			text: `item ${i} looked at`,
			life: 1,
			at: at(i),
		});
		if (i > n - 4) continue;
		events.push({
			type: "turn_end",
			path,
			agent: "scout",
			model: "scripted/scripted",
			subagent: `s${i}`,
			ok: true,
			usage,
			life: 1,
			at: at(i + 1),
		});
		events.push({ type: "node_end", ...e, ok: true, usage, life: 1, at: at(i + 1) });
		journal.push({
			type: "visit_end",
			life: 1,
			...e,
			ended: { ok: true, output: `done ${i}` },
			usage,
			at: at(i + 1),
		} as never);
	}
	const lines = (xs: unknown[]) => `${xs.map((x) => JSON.stringify(x)).join("\n")}\n`;
	writeFileSync(join(dir, "journal.jsonl"), lines(journal));
	writeFileSync(join(dir, "events.jsonl"), lines(events));
	return dir;
}

const big = makeRun("big", VISITS);
makeRun("small", 10);
const served = await startServer({
	cwd: join(root, "project"),
	agentDir: env.PI_CODING_AGENT_DIR,
	env,
	home,
	project: true,
});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
try {
	const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
	const page = await context.newPage();
	await page.goto(served.url);
	/** Navigation to the view drawn (the page sets `data-seq` once it drew the whole view). */
	const load = async (name: string) => {
		const best: number[] = [];
		for (let r = 0; r < 3; r++) {
			const t = performance.now();
			await page.goto(`${served.origin}/run/folder/2026-01-01_00-00-00-000-${name}`);
			await page.waitForFunction(
				() => Boolean((globalThis as unknown as PageBody).document.body.dataset.seq),
				undefined,
				{
					timeout: 30_000,
				},
			);
			best.push(performance.now() - t);
		}
		return best.sort((a, b) => a - b)[1];
	};
	const smallMs = await load("small");
	const bigMs = await load("big");
	// The page records when each record position reached it.
	await page.evaluate(`(() => {
		const seen = [];
		window.seen = seen;
		new MutationObserver(() => seen.push([Date.now(), document.body.dataset.seq || ""])).observe(document.body, {
			attributes: true,
			attributeFilter: ["data-seq"],
		});
	})()`);
	const writes: { at: number; journal: number; events: number }[] = [];
	const linesOf = (file: string) => readFileSync(join(big, file), "utf8").split("\n").filter(Boolean).length;
	let journalLines = linesOf("journal.jsonl");
	let eventLines = linesOf("events.jsonl");
	const total = RATE * SECONDS;
	const started = Date.now();
	for (let k = 0; k < total; k++) {
		const due = started + (k * 1000) / RATE;
		const wait = due - Date.now();
		if (wait > 0) await new Promise((r) => setTimeout(r, wait));
		const i = VISITS + 1 + Math.floor(k / 3);
		const path = `work[${i}]/act`;
		const now = new Date().toISOString();
		const e = { path, node: "act", kind: "agent", agent: "scout", life: 1, at: now };
		const kind = k % 3;
		const event =
			kind === 0
				? { type: "node_start", ...e }
				: kind === 1
					? { type: "tool_call", path, agent: "scout", subagent: `s${i}`, tool: "read", args: {}, life: 1, at: now }
					: { type: "node_end", ...e, ok: true, usage: emptyUsage() };
		appendFileSync(join(big, "events.jsonl"), `${JSON.stringify(event)}\n`);
		eventLines++;
		if (kind === 2) {
			const ended = { ok: true, output: "done" };
			appendFileSync(
				join(big, "journal.jsonl"),
				`${JSON.stringify({ type: "visit_end", ...e, ended, usage: emptyUsage() })}\n`,
			);
			journalLines++;
		} else if (kind === 0) {
			appendFileSync(join(big, "journal.jsonl"), `${JSON.stringify({ type: "visit_start", ...e })}\n`);
			journalLines++;
		}
		writes.push({ at: Date.now(), journal: journalLines, events: eventLines });
	}
	const wroteFor = Date.now() - started;
	const last = writes.at(-1) as (typeof writes)[number];
	await page.waitForFunction(
		([j, e]) => {
			const seq = (globalThis as unknown as PageBody).document.body.dataset.seq ?? "0.0";
			const [pj, pe] = seq.split(".").map(Number);
			return pj >= j && pe >= e;
		},
		[last.journal, last.events],
		{ timeout: 30_000 },
	);
	const seen = (await page.evaluate("window.seen")) as [number, string][];
	const shownAt = (w: (typeof writes)[number]) => {
		for (const [t, seq] of seen) {
			const [j, e] = seq.split(".").map(Number);
			if (j >= w.journal && e >= w.events) return t;
		}
		return Number.NaN;
	};
	const lags = writes.map((w) => shownAt(w) - w.at).filter(Number.isFinite);
	const sorted = [...lags].sort((a, b) => a - b);
	const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
	const tenth = Math.max(1, Math.floor(lags.length / 10));
	const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
	const out = {
		visits: VISITS,
		loadMs: Math.round(bigMs),
		loadSmallMs: Math.round(smallMs),
		loadRatio: Number((bigMs / smallMs).toFixed(2)),
		rate: Number(((writes.length * 1000) / wroteFor).toFixed(1)),
		written: writes.length,
		shown: lags.length,
		lagP50: Math.round(q(0.5)),
		lagP95: Math.round(q(0.95)),
		lagMax: Math.round(sorted.at(-1) ?? Number.NaN),
		lagFirstTenth: Math.round(mean(lags.slice(0, tenth))),
		lagLastTenth: Math.round(mean(lags.slice(-tenth))),
		/** The machine's 1-minute load average at the end: on a shared 2-core machine, the figures move with it. */
		load: Number(loadavg()[0].toFixed(1)),
	};
	if (process.argv.includes("--json")) console.log(JSON.stringify(out));
	else {
		console.log(
			`load: the page of a ${VISITS}-visit run in ${out.loadMs} ms (target ≤ 1000 ms); a 10-visit run in ${out.loadSmallMs} ms; ratio ${out.loadRatio}x`,
		);
		console.log(
			`follow: ${out.written} events at ${out.rate}/s, ${out.shown} shown; lag p50 ${out.lagP50} ms, p95 ${out.lagP95} ms, max ${out.lagMax} ms; first tenth ${out.lagFirstTenth} ms, last tenth ${out.lagLastTenth} ms (${out.lagLastTenth <= out.lagFirstTenth * 1.5 + 100 ? "kept up" : "fell behind"}); load average ${out.load}`,
		);
	}
} finally {
	await browser.close();
	await served.close();
	if (process.env.KEEP) console.error(root);
	else rmSync(root, { recursive: true, force: true });
}
