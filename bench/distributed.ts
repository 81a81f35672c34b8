/**
 * The distributed backend against the default one, on the scripted model, with real processes and a real
 * Postgres (a throwaway cluster, or `--database`):
 *
 *   1. throughput of a map of `--visits` (1,000) turns of `--turn-ms` (200 ms): the default backend (run
 *      folder, JSON journal) against `--backend dbos` with one worker and with two, each worker running
 *      `--slots` (8) items at once and the flow's concurrency two workers' worth (16), so one worker is
 *      bound by its slots and two workers and the default backend run equally many turns at once;
 *   2. the DBOS backend's added time per visit against the JSON journal: the slope of wall time over map size
 *      (maps of 50 and 150 instant turns, one at a time), so process start and DBOS launch cancel out;
 *   3. takeover: two workers, a map of long turns; SIGKILL one while it holds visits, and time until every
 *      visit it held is running on the other (or done), read from DBOS's `workflow_status` table.
 *
 * It drives the CLI as a user would: `pi-flows run <flow> --script <s>` for the default backend;
 * `pi-flows worker --database <url> --script <s>` and `pi-flows run <flow> --backend dbos --database <url>`
 * for the other. Where this checkout has no `worker` command or `--backend` flag it measures the default
 * backend alone and says the DBOS figures are not available: it never prints a number it did not measure.
 *
 *   node bench/distributed.ts [--visits 1000] [--turn-ms 200] [--slots 8] [--concurrency 16] [--rounds 3]
 *                             [--database URL] [--only throughput|slope|takeover] [--write] [--json]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMAND_DOCS, FLAG_DOCS } from "../src/cli/help.ts";
import {
	type Database,
	migrate,
	openDatabase,
	parseDatabaseUrl,
	redact,
	resolveDatabaseUrl,
} from "../src/distributed/index.ts";
import { PACKAGE_ROOT } from "../src/package/root.ts";
import { type Postgres, startPostgres } from "../test/helpers/pg-cluster.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { replaceSection } from "./lib/perf-doc.ts";
import { median, range } from "./lib/rounds.ts";

const arg = (name: string, fallback: number) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const text = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? process.argv[i + 1] : undefined;
};
const VISITS = arg("visits", 1000);
const TURN_MS = arg("turn-ms", 200);
/** Map items one worker runs at once (`pi-flows worker --slots`). */
const SLOTS = arg("slots", 8);
/**
 * The flow's concurrency: two workers' slots, so one worker is bound by its slots, two by the flow, and the
 * default backend runs as many at once as two workers do.
 */
const CONCURRENCY = arg("concurrency", 2 * SLOTS);
const ROUNDS = arg("rounds", 3);
const SLOPE_SIZES = [50, 150] as const;
const TAKEOVER_ITEMS = 64;
const TAKEOVER_TURN_MS = 4000;
/** One figure alone (`throughput`, `slope`, `takeover`), printed and never written. */
const ONLY = text("only");
const WRITE = process.argv.includes("--write") && !ONLY;
const wanted = (figure: string) => !ONLY || ONLY === figure;
const JSON_OUT = process.argv.includes("--json");

/** Why the DBOS sides cannot run in this checkout, or undefined when they can. */
function backendMissing(): string | undefined {
	const missing = [
		...(COMMAND_DOCS.worker ? [] : ["no `pi-flows worker` command"]),
		...(FLAG_DOCS.backend ? [] : ["no `--backend` flag"]),
		...(FLAG_DOCS.database ? [] : ["no `--database` flag"]),
	];
	return missing.length ? `backend not available: this checkout has ${missing.join(", ")} (issue 18)` : undefined;
}

const CLI = join(PACKAGE_ROOT, "bin/pi-flows.js");

interface Project {
	cwd: string;
	env: NodeJS.ProcessEnv;
	flow(name: string, items: number, concurrency: number): string;
	script(latencyMs: number): string;
}

function project(root: string): Project {
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	// Outside the project folder: a flow inside it would be repository content, refused until trusted.
	const files = join(root, "files");
	mkdirSync(files, { recursive: true });
	return {
		cwd,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1" },
		flow(name, items, concurrency) {
			const list = Array.from({ length: items }, (_, i) => `i${i}`).join(", ");
			const file = join(files, `${name}.md`);
			writeFileSync(
				file,
				`---\nname: ${name}\ndescription: bench\ninput: string\nnodes:\n  - id: work\n    map: [${list}]\n` +
					`    concurrency: ${concurrency}\n    do:\n      - id: act\n        agent: scout\n---\n\n## act\n\nAct on {{item}}.\n`,
			);
			return file;
		},
		script(latencyMs) {
			const file = join(files, `turns-${latencyMs}.yaml`);
			writeFileSync(file, `latencyMs: ${latencyMs}\nturns:\n  "*":\n    - say: done\n`);
			return file;
		},
	};
}

interface Ran {
	status: number | null;
	ms: number;
	stdout: string;
	stderr: string;
}

/** Runs `pi-flows <args>` to its end and times it. */
function cli(p: Project, args: readonly string[]): Promise<Ran> {
	return new Promise((resolve) => {
		const start = performance.now();
		const child = spawn(process.execPath, [CLI, ...args], { cwd: p.cwd, env: p.env });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		child.once("exit", (status) => resolve({ status, ms: performance.now() - start, stdout, stderr }));
	});
}

function mustSucceed(what: string, ran: Ran): number {
	if (ran.status !== 0) {
		throw new Error(`${what} exited ${ran.status}:\n${redact(ran.stderr.slice(-2000))}`);
	}
	return ran.ms;
}

/** A running `pi-flows worker`, with its output kept for a failure's message. */
interface Worker {
	child: ChildProcess;
	output(): string;
	/** The DBOS executor id the worker announced (`worker <id> joined`). */
	executor(): string | undefined;
	stop(): Promise<void>;
}

function startWorker(p: Project, url: string): Worker {
	// The script travels in the run's snapshot: a worker needs only the database.
	const args = [CLI, "worker", "--database", url, "--slots", String(SLOTS)];
	const child = spawn(process.execPath, args, { cwd: p.cwd, env: p.env });
	let output = "";
	child.stdout?.on("data", (d) => {
		output += d;
	});
	child.stderr?.on("data", (d) => {
		output += d;
	});
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	return {
		child,
		output: () => redact(output),
		executor: () => /worker (\S+) joined/.exec(output)?.[1],
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
		},
	};
}

/** A fresh database for one side, migrated as a worker would, so no side pays for set-up inside its clock. */
async function freshDatabase(pg: Postgres | undefined, given: string | undefined): Promise<string> {
	let url: string;
	if (pg) {
		url = await pg.database();
	} else {
		const base = new URL(given ?? "");
		base.pathname = `/pi_flows_bench_${Date.now().toString(36)}`;
		url = base.toString();
	}
	const target = parseDatabaseUrl(url);
	if (!target.ok) throw new Error(target.message);
	const db = await openDatabase(target.value, { create: true });
	if (!db.ok) throw new Error(`${db.message} (${db.hint})`);
	try {
		const migrated = await migrate(db.value);
		if (!migrated.ok) throw new Error(migrated.message);
	} finally {
		await db.value.close();
	}
	return url;
}

/** Waits until every worker has announced that it joined (`worker <id> joined`). */
async function settle(workers: readonly Worker[]): Promise<void> {
	const deadline = Date.now() + 120_000;
	while (workers.some((w) => w.executor() === undefined)) {
		for (const w of workers) {
			if (w.child.exitCode !== null) throw new Error(`a worker exited at start:\n${w.output()}`);
		}
		if (Date.now() > deadline)
			throw new Error(`a worker did not join in 120 s:\n${workers.map((w) => w.output()).join("\n")}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

async function dbosRun(
	p: Project,
	pg: Postgres | undefined,
	given: string | undefined,
	workers: number,
	flow: string,
	script: string,
): Promise<number> {
	const url = await freshDatabase(pg, given);
	const started = Array.from({ length: workers }, () => startWorker(p, url));
	try {
		await settle(started);
		const ran = await cli(p, ["run", flow, "go", "--backend", "dbos", "--database", url, "--script", script]);
		return mustSucceed(`dbos run with ${workers} worker(s)`, ran);
	} catch (error) {
		throw new Error(`${redact(String(error))}\nworker output:\n${started.map((w) => w.output()).join("\n---\n")}`);
	} finally {
		await Promise.all(started.map((w) => w.stop()));
	}
}

function defaultRun(p: Project, flow: string, script: string, runsDir: string): Promise<number> {
	return cli(p, ["run", flow, "go", "--script", script, "--runs-dir", runsDir]).then((r) =>
		mustSucceed("default run", r),
	);
}

/** How many workflows the killed worker held, for the table. */
let takeoverHeld = 0;

/** Workflows pending under an executor: what a worker holds at the moment. */
async function heldBy(db: Database, executor: string): Promise<string[]> {
	const rows = await db.query<{ id: string }>(
		"SELECT workflow_uuid AS id FROM dbos.workflow_status WHERE executor_id = $1 AND status = 'PENDING'",
		[executor],
	);
	if (!rows.ok) throw new Error(rows.message);
	return rows.value.map((r) => r.id);
}

/**
 * Two workers; the first alone picks up visits, the second joins, the first is killed with SIGKILL. The
 * figure is the time from the kill until every workflow the dead worker held is running under another
 * executor or has ended (re-enqueued and waiting does not count).
 */
async function takeover(p: Project, pg: Postgres | undefined, given: string | undefined): Promise<number> {
	const url = await freshDatabase(pg, given);
	const target = parseDatabaseUrl(url);
	if (!target.ok) throw new Error(target.message);
	const opened = await openDatabase(target.value);
	if (!opened.ok) throw new Error(opened.message);
	const db = opened.value;
	const flow = p.flow("takeover", TAKEOVER_ITEMS, 8);
	const script = p.script(TAKEOVER_TURN_MS);
	const a = startWorker(p, url);
	let b: Worker | undefined;
	try {
		await settle([a]);
		const dead = a.executor() ?? "";
		const run = cli(p, ["run", flow, "go", "--backend", "dbos", "--database", url, "--script", script]);
		const deadline = Date.now() + 60_000;
		while ((await heldBy(db, dead)).length < 2) {
			if (Date.now() > deadline) throw new Error(`the first worker picked up no visit:\n${a.output()}`);
			await new Promise((r) => setTimeout(r, 50));
		}
		b = startWorker(p, url);
		await settle([b]);
		const held = await heldBy(db, dead);
		// Nothing held means nothing to take over: the figure would be zero by construction.
		if (held.length === 0) throw new Error("the first worker held no visit when it was to be killed");
		takeoverHeld = held.length;
		a.child.kill("SIGKILL");
		const killed = performance.now();
		let movedAt: number | undefined;
		while (movedAt === undefined) {
			const rows = await db.query<{ executor_id: string; status: string }>(
				"SELECT executor_id, status FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)",
				[held],
			);
			if (!rows.ok) throw new Error(rows.message);
			const elsewhere = (r: { executor_id: string; status: string }) =>
				r.status !== "ENQUEUED" && !(r.status === "PENDING" && r.executor_id === dead);
			if (rows.value.length === held.length && rows.value.every(elsewhere)) movedAt = performance.now();
			else if (performance.now() - killed > 300_000)
				throw new Error("visits still held by the dead worker after 300 s");
			else await new Promise((r) => setTimeout(r, 25));
		}
		mustSucceed("the run whose worker was killed", await run);
		return movedAt - killed;
	} finally {
		a.child.kill("SIGKILL");
		await b?.stop();
		await db.close();
	}
}

/** How each figure is taken, printed under the table. */
const HOW = `How each side is timed: every side is real processes started with the Node 22 the package brings, against a throwaway Postgres (\`initdb\` in a temp folder, fsync off) or \`--database\`, each DBOS side on a fresh database migrated before its clock starts. (1) A side is the wall time of \`pi-flows run <flow> go --script <s>\` (default backend) or \`pi-flows run <flow> go --backend dbos --database <url> --script <s>\` with the workers already joined (\`pi-flows worker --database <url> --slots 8\`, started before the clock and stopped after), to the run's answer on stdout; the flow is one literal \`map:\` of one \`scout\` turn per item, the scripted model answering each after its \`latencyMs\`; sides rotate order every round; figures are medians. (2) Maps of 50 and 150 instant turns at concurrency 1 on each backend; the slope (wall difference / 100 visits) leaves out process start, DBOS launch and the follow loop's start. (3) One worker joins, the run starts, and once that worker holds visits (DBOS \`workflow_status\` rows PENDING under its executor id) a second joins and the first is SIGKILLed; the figure ends when every workflow the dead worker held is PENDING under another executor or has ended (re-enqueued but waiting does not count); the run must then end ok.`;

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const ratio = (x: number) => `${x.toFixed(2)}×`;

async function main(): Promise<number> {
	const m = machine();
	const missing = backendMissing();
	if (missing) console.error(`DBOS ${missing}; measuring the default backend only.`);
	const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-distributed-"));
	let pg: Postgres | undefined;
	try {
		const p = project(root);
		const flow = p.flow("throughput", VISITS, CONCURRENCY);
		const script = p.script(TURN_MS);
		const runsDir = join(root, "runs");

		const sides: Record<string, number[]> = { default: [], one: [], two: [] };
		let given: string | undefined;
		if (!missing) {
			given = resolveDatabaseUrl(text("database"));
			if (!given) {
				const started = await startPostgres();
				if ("skip" in started) throw new Error(`no Postgres for the DBOS sides: ${started.skip}`);
				pg = started;
			}
		}
		for (let round = 0; round < (wanted("throughput") ? ROUNDS : 0); round++) {
			const order = ["default", "one", "two"].filter((s) => !missing || s === "default");
			// Rotate so no side always runs first on a machine whose load drifts.
			for (const side of [...order.slice(round % order.length), ...order.slice(0, round % order.length)]) {
				const ms =
					side === "default"
						? await defaultRun(p, flow, script, runsDir)
						: await dbosRun(p, pg, given, side === "one" ? 1 : 2, flow, script);
				sides[side].push(ms);
				console.error(`round ${round + 1} ${side}: ${fmt(ms)}`);
			}
		}

		const slope: Record<string, number[]> = { default: [], dbos: [] };
		let takeoverMs: number | undefined;
		if (!missing) {
			const instant = p.script(0);
			const flows = SLOPE_SIZES.map((n) => p.flow(`seq${n}`, n, 1));
			for (let round = 0; round < (wanted("slope") ? ROUNDS : 0); round++) {
				// One at a time: two runs at once would share the cores and blur the slope.
				const d: number[] = [];
				const b: number[] = [];
				for (const f of flows) d.push(await defaultRun(p, f, instant, runsDir));
				for (const f of flows) b.push(await dbosRun(p, pg, given, 1, f, instant));
				const span = SLOPE_SIZES[1] - SLOPE_SIZES[0];
				slope.default.push((d[1] - d[0]) / span);
				slope.dbos.push((b[1] - b[0]) / span);
			}
			if (wanted("takeover")) takeoverMs = await takeover(p, pg, given);
		}

		const med = (xs: number[]) => (xs.length ? median(xs) : Number.NaN);
		const visitsPerS = (ms: number) => (VISITS / ms) * 1000;
		/** The wall time of the map with `atOnce` turns at a time and nothing else costing anything. */
		const ideal = (atOnce: number) => Math.ceil(VISITS / atOnce) * TURN_MS;
		const result = {
			machine: m,
			visits: VISITS,
			turnMs: TURN_MS,
			concurrency: CONCURRENCY,
			slots: SLOTS,
			rounds: ROUNDS,
			backend: missing ?? "dbos",
			wallMs: { default: med(sides.default), oneWorker: med(sides.one), twoWorkers: med(sides.two) },
			addedMsPerVisit: missing ? undefined : med(slope.dbos) - med(slope.default),
			takeoverMs,
		};
		if (JSON_OUT) {
			console.log(JSON.stringify(result, null, 2));
			return 0;
		}
		const rows: string[][] = [
			[
				`default backend, ${VISITS.toLocaleString("en")} visits of ${TURN_MS} ms at concurrency ${CONCURRENCY} (ideal ${fmt(ideal(CONCURRENCY))}; median of ${ROUNDS})`,
				`${fmt(result.wallMs.default)} (${visitsPerS(result.wallMs.default).toFixed(0)} visits/s; rounds ${range(sides.default).map(fmt).join("–")})`,
			],
		];
		if (missing) {
			rows.push(["DBOS backend: 1 worker, 2 workers, added time per visit, takeover", `not measured: ${missing}`]);
		} else {
			const one = result.wallMs.oneWorker;
			const two = result.wallMs.twoWorkers;
			rows.push(
				[
					`DBOS, 1 worker of ${SLOTS} slots (ideal ${fmt(ideal(SLOTS))})`,
					`${fmt(one)} (${visitsPerS(one).toFixed(0)} visits/s; rounds ${range(sides.one).map(fmt).join("–")})`,
				],
				[
					`DBOS, 2 workers of ${SLOTS} slots (ideal ${fmt(ideal(Math.min(2 * SLOTS, CONCURRENCY)))})`,
					`${fmt(two)} (${visitsPerS(two).toFixed(0)} visits/s; rounds ${range(sides.two).map(fmt).join("–")})`,
				],
				["throughput: 1 worker / default", ratio(result.wallMs.default / one)],
				["throughput: 2 workers / 1 worker", ratio(one / two)],
				["throughput: 2 workers / default", ratio(result.wallMs.default / two)],
				[
					`added wall time per visit, DBOS against the JSON journal (slope over ${SLOPE_SIZES.join(" and ")} sequential instant visits)`,
					`${(result.addedMsPerVisit ?? 0).toFixed(1)} ms (JSON ${med(slope.default).toFixed(1)} ms, DBOS ${med(slope.dbos).toFixed(1)} ms a visit)`,
				],
				[
					`takeover: SIGKILL of a worker to its visits pending elsewhere (${TAKEOVER_ITEMS} visits of ${TAKEOVER_TURN_MS} ms)`,
					takeoverMs === undefined ? "not measured" : `${fmt(takeoverMs)} (${takeoverHeld} workflows held at the kill)`,
				],
			);
		}
		const table = ["| figure | this run |", "| --- | --- |", ...rows.map((r) => `| ${r[0]} | ${r[1]} |`)].join("\n");
		const body = [
			`Measured on ${describeMachine(m)}. Every process (workers, the \`run\` that enqueues and follows, Postgres) shares that machine: two workers on one machine share its cores, so figure 1's "2 workers / 1 worker" shows the backend's scaling only where the machine has cores to spare; on separate machines each worker brings its own.`,
			"",
			"```sh",
			"npm run bench:distributed            # print the table",
			"node bench/distributed.ts --write    # and replace this section",
			"```",
			"",
			table,
			"",
			HOW,
		].join("\n");
		console.log(body);
		if (WRITE && !missing) replaceSection(join(PACKAGE_ROOT, "docs", "performance.md"), "Distributed", body);
		if (WRITE && missing) console.error("docs/performance.md left alone: the DBOS figures were not measured.");
		return missing ? 3 : 0;
	} finally {
		await pg?.stop();
		rmSync(root, { recursive: true, force: true });
	}
}

process.exitCode = await main();
