/**
 * `npm run fuzz`: every parser of the flow language on 100,000 generated, mutated and arbitrary inputs,
 * in worker threads, with a table of what each target was asked and how it answered. Exit 1 when any
 * case crashed, broke a promise about its answer, or was slow; known bugs are shown and not counted.
 *
 *   node fuzz/run.ts [--seed N] [--cases N] [--target NAME[,NAME]] [--jobs N]
 *
 * Every target is cut into shards of fixed size with seeds derived from the run's seed, so the same seed
 * replays the same cases whatever the number of workers.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { failed, type Outcome } from "./harness.ts";
import { TARGETS } from "./targets.ts";
import type { Task } from "./worker.ts";

const DEFAULT_CASES = 100_000;
/** Small enough to balance two workers when one target is slower than the rest. */
const SHARD_CASES = 2_000;
/**
 * The main thread's stack (about 1 MB), where the CLI and the language server parse. A worker's default
 * is 4 MB, which would hide a stack overflow (bug 1 was one: ohm recursing once per nesting level).
 */
const STACK_MB = 1;

const USAGE = "usage: node fuzz/run.ts [--seed N] [--cases N] [--target NAME[,NAME]] [--jobs N]";

function options(): { seed: number; cases: number; targets: string[]; jobs: number } {
	const { values } = parseArgs({
		options: {
			seed: { type: "string" },
			cases: { type: "string" },
			target: { type: "string" },
			jobs: { type: "string" },
			help: { type: "boolean" },
		},
	});
	if (values.help) {
		console.log(USAGE);
		process.exit(0);
	}
	const int = (text: string | undefined, fallback: number, name: string) => {
		if (text === undefined) return fallback;
		const n = Number(text);
		if (!Number.isSafeInteger(n) || n < 0) {
			console.error(`fuzz: --${name} takes a whole number, not ${text}\n${USAGE}`);
			process.exit(2);
		}
		return n;
	};
	const names = values.target ? values.target.split(",").map((t) => t.trim()) : TARGETS.map((t) => t.name);
	const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
	if (unknown.length) {
		console.error(`fuzz: no target ${unknown.join(", ")}; the targets are ${TARGETS.map((t) => t.name).join(", ")}`);
		process.exit(2);
	}
	return {
		seed: int(values.seed, Math.floor(Math.random() * 0x7fffffff), "seed"),
		cases: int(values.cases, DEFAULT_CASES, "cases"),
		targets: names,
		jobs: Math.max(1, int(values.jobs, Math.min(availableParallelism(), 4), "jobs")),
	};
}

/** A shard's seed: a pure function of the run's seed and the shard's place, never of the worker. */
function shardSeed(seed: number, target: number, shard: number): number {
	let h = (seed ^ Math.imul(target + 1, 0x9e3779b1)) >>> 0;
	h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ Math.imul(shard + 1, 0xc2b2ae35);
	return (h ^ (h >>> 13)) & 0x7fffffff;
}

/** The shards of a run: each target's share of `total`, cut into pieces of at most SHARD_CASES. */
function plan(seed: number, total: number, names: readonly string[]): Task[] {
	const counted = TARGETS.filter((t) => !t.knownBug).reduce((sum, t) => sum + t.cases, 0);
	const tasks: Task[] = [];
	TARGETS.forEach((t, ti) => {
		if (!names.includes(t.name)) return;
		let left = Math.max(1, Math.ceil((t.cases * total) / counted));
		for (let shard = 0; left > 0; shard++) {
			const cases = Math.min(SHARD_CASES, left);
			tasks.push({ id: tasks.length, target: t.name, cases, seed: shardSeed(seed, ti, shard) });
			left -= cases;
		}
	});
	return tasks;
}

/**
 * A shard slower than this has hung (a parser in an endless loop cannot be interrupted from inside): its
 * worker is stopped, the shard counted as one failure, and a fresh worker takes the rest of the queue.
 */
const shardDeadlineMs = (task: Task) => Math.max(60_000, task.cases * 50);

/** The outcome of a shard that did not answer: its worker hung or died. */
function lost(task: Task, why: string): Outcome {
	const target = TARGETS.find((t) => t.name === task.target);
	return {
		target: task.target,
		seed: task.seed,
		cases: 0,
		values: 0,
		crashes: why.startsWith("hung") ? 0 : 1,
		broken: 0,
		slow: why.startsWith("hung") ? 1 : 0,
		ms: 0,
		slowestMs: 0,
		failures: [
			{
				kind: why.startsWith("hung") ? "slow" : "crash",
				index: -1,
				message: `the shard ${why}`,
				input: `(not known: the whole shard of ${task.cases} cases, shard seed ${task.seed})`,
			},
		],
		...(target?.knownBug ? { knownBug: target.knownBug } : {}),
	};
}

/** Runs the tasks on `jobs` workers, longest first so the last shards to finish are short ones. */
async function runAll(
	tasks: readonly Task[],
	jobs: number,
	progress: (done: number) => void,
): Promise<Map<number, Outcome>> {
	const queue = [...tasks].sort((a, b) => b.cases - a.cases);
	const results = new Map<number, Outcome>();
	const finish = (id: number, outcome: Outcome) => {
		results.set(id, outcome);
		progress(results.size);
	};
	const lane = async (): Promise<void> => {
		while (queue.length) {
			const w = new Worker(new URL("./worker.ts", import.meta.url), { resourceLimits: { stackSizeMb: STACK_MB } });
			// Runs shards on this worker until the queue is empty, or the worker is lost with one of them.
			await new Promise<void>((done) => {
				let current: Task | undefined;
				let timer: NodeJS.Timeout | undefined;
				let stopped = false;
				const next = () => {
					clearTimeout(timer);
					current = queue.shift();
					if (!current) {
						stopped = true;
						return void w.terminate().then(() => done());
					}
					const task = current;
					timer = setTimeout(() => {
						stopped = true;
						current = undefined;
						finish(task.id, lost(task, `hung: no answer in ${shardDeadlineMs(task) / 1000} s`));
						void w.terminate().then(() => done());
					}, shardDeadlineMs(task));
					w.postMessage(task);
				};
				w.on("message", (m: { id: number; outcome: Outcome }) => {
					// A shard that answers after its deadline was already counted, and its worker is going.
					if (stopped) return;
					finish(m.id, m.outcome);
					next();
				});
				w.on("error", (error) => {
					if (stopped) return;
					stopped = true;
					clearTimeout(timer);
					if (current) finish(current.id, lost(current, `killed its worker: ${error.message}`));
					current = undefined;
					done();
				});
				w.on("exit", (code) => {
					if (stopped) return;
					stopped = true;
					clearTimeout(timer);
					if (current) finish(current.id, lost(current, `ended its worker (exit code ${code})`));
					done();
				});
				next();
			});
		}
	};
	await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, lane));
	return results;
}

/** One row per target: the shards' counts added up, their times added (CPU time, not wall time). */
function merge(tasks: readonly Task[], results: Map<number, Outcome>): Outcome[] {
	const rows = new Map<string, Outcome>();
	for (const task of tasks) {
		const o = results.get(task.id);
		if (!o) continue;
		const row = rows.get(o.target);
		if (!row) {
			rows.set(o.target, { ...o, failures: [...o.failures] });
			continue;
		}
		row.cases += o.cases;
		row.values += o.values;
		row.crashes += o.crashes;
		row.broken += o.broken;
		row.slow += o.slow;
		row.ms += o.ms;
		row.slowestMs = Math.max(row.slowestMs, o.slowestMs);
		for (const f of o.failures)
			if (row.failures.length < 5)
				row.failures.push({ ...f, message: `${f.message} (shard seed ${o.seed}, case ${f.index})` });
	}
	return [...rows.values()];
}

const n = (x: number) => x.toLocaleString("en-US");
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function table(rows: readonly Outcome[]): string {
	const head = ["target", "cases", "answered with a value", "crashes", "broken", "slow", "worker time", "slowest case"];
	const body = rows.map((o) => [
		o.target,
		n(o.cases),
		`${((100 * o.values) / Math.max(1, o.cases)).toFixed(1)}%`,
		o.knownBug ? `${n(o.crashes)} (known)` : n(o.crashes),
		n(o.broken),
		n(o.slow),
		secs(o.ms),
		`${Math.round(o.slowestMs)} ms`,
	]);
	const counted = rows.filter((o) => !o.knownBug);
	const sum = (f: (o: Outcome) => number) => counted.reduce((s, o) => s + f(o), 0);
	body.push([
		"total (known bugs apart)",
		n(sum((o) => o.cases)),
		"",
		n(sum((o) => o.crashes)),
		n(sum((o) => o.broken)),
		n(sum((o) => o.slow)),
		secs(sum((o) => o.ms)),
		"",
	]);
	const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
	const line = (cells: string[]) =>
		cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
	return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

async function main(): Promise<number> {
	const { seed, cases, targets, jobs } = options();
	const tasks = plan(seed, cases, targets);
	const total = tasks.reduce((s, t) => s + t.cases, 0);
	console.log(
		`pi-flows fuzz · seed ${seed} · ${n(total)} cases · ${tasks.length} shards on ${jobs} worker${jobs === 1 ? "" : "s"}`,
	);
	const started = performance.now();
	const tty = process.stderr.isTTY;
	const results = await runAll(tasks, jobs, (done) => {
		if (tty) process.stderr.write(`\r${done}/${tasks.length} shards`);
	});
	if (tty) process.stderr.write(`${"\r".padEnd(20)}\r`);
	const rows = merge(tasks, results);
	console.log(`\n${table(rows)}\n\nwall time ${secs(performance.now() - started)}`);
	for (const o of rows) {
		if (o.knownBug) {
			const still = o.crashes + o.broken + o.slow > 0;
			console.log(
				`\n${o.target}: ${o.knownBug}\n  ${still ? `still reproduces (${n(o.crashes)} crashes), e.g. ${o.failures[0]?.input}` : "did not reproduce: if it is fixed, drop the mark here and the it.fails in test/language/fuzz-sample.test.ts"}`,
			);
		}
	}
	const bad = rows.filter((o) => failed(o) > 0);
	for (const o of bad) {
		console.log(`\n${o.target}: ${n(failed(o))} failing case(s); the first:`);
		for (const f of o.failures)
			console.log(
				`  ${f.kind}: ${f.message}\n    input: ${f.input.length > 2000 ? `${f.input.slice(0, 2000)}…` : f.input}`,
			);
	}
	if (bad.length)
		console.log(
			`\nreplay: node fuzz/run.ts --seed ${seed} --cases ${cases} --target ${bad.map((o) => o.target).join(",")}`,
		);
	else console.log(`\nno crash in ${n(rows.filter((o) => !o.knownBug).reduce((s, o) => s + o.cases, 0))} cases`);
	return bad.length ? 1 : 0;
}

process.exitCode = await main();
