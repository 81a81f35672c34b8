/**
 * What the engine costs over bare pi sessions, how well a map's turns overlap, and what an in-process
 * subagent saves over one `pi -p` process per turn. Every comparison runs side by side in this one process,
 * in rounds whose order alternates, and reports medians and ratios (never absolute claims: the machine is
 * shared and noisy).
 *
 *   1. engine overhead   a flow with one literal `map` of 1,000 items at `concurrency: 8`, each item one
 *                        turn of the shipped `scout` on the scripted model (no latency), through the whole
 *                        pipeline (check, resolve models, runFlow), versus a bare loop of the same 1,000
 *                        turns (`host.spawn` + `ask` + `close`, 8 at a time with `mapConcurrent`); a fresh
 *                        host per round on both sides, opened outside the clock. Target: engine/bare ≤ 1.1 (issue 34),
 *                        judged on wall time and on CPU time: the main thread's (the steadiest on a loaded machine) and the
 *                        whole process's (with the GC's helper threads).
 *                        A third side, the bare loop making exactly the engine's spawn request and ask options
 *                        (captured from a one-item run), splits the overhead into what the engine asks of pi
 *                        per turn and the evaluator's own work. A fourth side runs the same pipeline on
 *                        sessions that answer at once without pi: the evaluator's own work alone, which
 *                        the differences of the other sides carry inside the machine's noise.
 *   2. parallel          64 items at concurrency 8 with `latencyMs: 50`, versus the ideal
 *      efficiency        ceil(64/8) × t1, where t1 is the per-turn time measured at concurrency 1 (8 items,
 *                        same pipeline, same latency). Target: ≤ 1.15.
 *   3. in-process versus a process per turn: `host.spawn` + `ask` + `close` versus `node <pi cli> --offline
 *                        --no-session -ne -e <faux extension> --model … -p task` with PI_CODING_AGENT_DIR in
 *                        a temp folder, 10 turns each, sequential, interleaved; a bare `node -e ""` start is
 *                        timed alongside as the floor of any process per turn.
 *
 *   node bench/engine.ts              print the table
 *   node bench/engine.ts --write      also write it to docs/performance.md under `## Engine`
 *   node bench/engine.ts --only=1,3   run some parts (the doc is written only from a full run)
 *   node bench/engine.ts --verbose    also print every recorded round
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/agents/index.ts";
import { mapConcurrent } from "../src/combinators/index.ts";
import type { PiHost } from "../src/pi/index.ts";
import type { AskOptions, SpawnRequest } from "../src/runtime/subagent.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { replaceSection } from "./lib/perf-doc.ts";
import { prepareProcessTurn } from "./lib/pi-process.ts";
import { interleave, median, range, ratios, type Sample, timed } from "./lib/rounds.ts";
import {
	captureEngineTurn,
	itemsOf,
	mapFlow,
	okScript,
	runPipeline,
	type Sandbox,
	sandbox,
	taskFor,
} from "./lib/sandbox.ts";

const ENGINE = { items: 1000, concurrency: 8, rounds: 9, warmup: 2, target: 1.1 };
const PARALLEL = { items: 64, concurrency: 8, latencyMs: 50, single: 8, rounds: 7, warmup: 1, target: 1.15 };
const PROCESS = { turns: 10, warmup: 2, inProcessWarmup: 20 };

const args = process.argv.slice(2);
const write = args.includes("--write");
const verbose = args.includes("--verbose");
const only = args
	.find((a) => a.startsWith("--only="))
	?.slice("--only=".length)
	.split(",") ?? ["1", "2", "3"];
const full = ["1", "2", "3"].every((p) => only.includes(p));
if (write && !full) {
	console.error("bench: --write needs a full run (drop --only)");
	process.exit(2);
}

/** One row of the table: a figure, its value, and its target if it has one. */
interface Row {
	figure: string;
	value: string;
	target?: string;
	met?: boolean;
}

const fmtMs = (ms: number) =>
	ms >= 100
		? `${ms.toFixed(0)} ms`
		: ms >= 10
			? `${ms.toFixed(1)} ms`
			: ms >= 1
				? `${ms.toFixed(2)} ms`
				: `${(ms * 1000).toFixed(0)} µs`;
const fmtX = (x: number) => (x >= 100 ? `${x.toFixed(0)}×` : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`);
const spread = (xs: number[], f: (x: number) => string) => {
	const [lo, hi] = range(xs);
	return `${f(lo)}–${f(hi)}`;
};

const readings: string[] = [];
const notes: string[] = [];

const wall = (xs: Sample[]) => xs.map((x) => x.ms);
const cpu = (xs: Sample[]) => xs.map((x) => x.cpuMs);
const thread = (xs: Sample[]) => xs.map((x) => x.threadMs);

/** `--verbose`: every recorded round, to see drift and outliers. */
function dump(part: string, sides: Record<string, Sample[]>): void {
	if (!verbose) return;
	for (const [name, xs] of Object.entries(sides))
		console.log(
			`  ${part} ${name}: wall ${xs.map((x) => x.ms.toFixed(1)).join(" ")} | main thread ${xs.map((x) => x.threadMs.toFixed(1)).join(" ")} | process cpu ${xs.map((x) => x.cpuMs.toFixed(1)).join(" ")}`,
		);
}

/** A session that answers `ok` at once: no pi, so a run on it is the evaluator's own work. */
const stubSpawn: PiHost["spawn"] = async (request) => ({
	id: `stub-${request.agent.name}`,
	agent: request.agent.name,
	model: "scripted/scripted",
	close: async () => {},
	ask: async () => ({
		agent: request.agent.name,
		output: "ok",
		messages: [],
		usage: {
			input: 1,
			output: 1,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 2,
			cost: 0,
			requests: 1,
			toolCalls: 0,
			ms: 0,
		},
		model: "scripted/scripted",
		ok: true,
	}),
});

async function engineOverhead(box: Sandbox): Promise<Row[]> {
	const { items: n, concurrency } = ENGINE;
	const items = itemsOf(n);
	const flow = mapFlow(items, concurrency);
	const script = okScript(0);
	const agent = box.agent("scout");
	const spans = { check: [] as number[], run: [] as number[] };
	const engineTurn = await captureEngineTurn(box, await box.host(script));
	const bareLoop =
		(request: SpawnRequest, options: Omit<AskOptions, "label" | "signal">) => async (): Promise<Sample> => {
			const host = await box.host(script);
			const signal = new AbortController().signal;
			const sample = await timed(() =>
				mapConcurrent(items, concurrency, async (item, i) => {
					const sub = await host.spawn(request);
					try {
						const r = await sub.ask(taskFor(item), { ...options, signal, label: `bare[${i + 1}]` });
						if (!r.ok) throw new Error(`bench: a bare turn failed: ${r.error}`);
					} finally {
						await sub.close();
					}
				}),
			);
			const calls = host.scripted?.calls() ?? 0;
			if (calls !== n || host.open() !== 0)
				throw new Error(`bench: the bare loop made ${calls} requests for ${n} turns`);
			return sample;
		};
	const { label: _label, signal: _signal, ...engineAsk } = engineTurn.ask;
	const sides = await interleave(ENGINE.rounds, ENGINE.warmup, {
		engine: async () => {
			const host = await box.host(script);
			const ran = await runPipeline(box, host, flow);
			const calls = host.scripted?.calls() ?? 0;
			if (calls !== n || host.open() !== 0)
				throw new Error(`bench: the engine made ${calls} requests for ${n} turns, ${host.open()} sessions left open`);
			spans.check.push(ran.checkMs);
			spans.run.push(ran.resolveMs + ran.runMs);
			return { ms: ran.totalMs, cpuMs: ran.cpuMs, threadMs: ran.threadMs };
		},
		bare: bareLoop({ agent, model: "scripted", cwd: box.cwd }, {}),
		// The same bare loop, making exactly the engine's spawn request and ask options: what the engine asks
		// of pi per turn, without the evaluator around it.
		engineTurn: bareLoop({ ...engineTurn.request, onToolCall: () => {} }, engineAsk),
		// The whole pipeline on sessions that answer at once without pi: the evaluator's own work alone,
		// which the differences of the sides above carry inside the machine's noise.
		stubbed: async () => {
			const host = await box.host(script);
			const ran = await runPipeline(box, { ...host, spawn: stubSpawn }, flow);
			return { ms: ran.totalMs, cpuMs: ran.cpuMs, threadMs: ran.threadMs };
		},
	});
	dump("1", sides);
	const ratio = ratios(wall(sides.engine), wall(sides.bare));
	const threadRatio = ratios(thread(sides.engine), thread(sides.bare));
	const cpuRatio = ratios(cpu(sides.engine), cpu(sides.bare));
	const sameRatio = ratios(thread(sides.engine), thread(sides.engineTurn));
	const r = median(ratio);
	const rt = median(threadRatio);
	const rc = median(cpuRatio);
	const check = median(spans.check);
	const met = r <= ENGINE.target;
	const threadMet = rt <= ENGINE.target;
	const cpuMet = rc <= ENGINE.target;
	const perTurn = (xs: number[]) => median(xs) / n;
	// The split per turn reads the main thread's CPU: the steadiest of the three measures.
	const bare = perTurn(thread(sides.bare));
	const asked = perTurn(thread(sides.engineTurn));
	const engine = perTurn(thread(sides.engine));
	const req = engineTurn.request;
	// `*`: the engine's own; `†`: registered and declared only once the turn's watermark fires.
	const tools = [
		...(req.tools ?? req.agent.tools),
		...(req.customTools ?? []).map((t) => `${t.name}*`),
		...(req.laterTools?.() ?? []).map((t) => `${t.name}*†`),
	];
	const askKeys = Object.keys(engineAsk);
	const plus = (ms: number) => `${ms >= 0 ? "+" : "−"}${fmtMs(Math.abs(ms))}`;
	const verdict = (ok: boolean) => (ok ? "met" : "missed");
	readings.push(
		`**Engine overhead ${fmtX(r)} wall, ${fmtX(rt)} main-thread CPU, ${fmtX(rc)} process CPU** (target ≤ ${ENGINE.target}: ${verdict(met)}, ${verdict(threadMet)}, ${verdict(cpuMet)}): ` +
			`a 1,000-turn map through the whole pipeline against a bare loop over the same number of pi sessions of the same agent. Per turn the engine adds ${plus(engine - bare)} of main-thread CPU to the bare ${fmtMs(bare)}: ` +
			`${plus(asked - bare)} is what it asks of pi (the bare loop making the engine's spawn request — tools ${tools.join(", ")}, * its own, † declared only at the watermark — and ask options ${askKeys.join(", ")}), ` +
			`${plus(engine - asked)} the evaluator's own work, the check of the 1,000-item flow taking ${fmtMs(check / n)} a turn of it (${fmtMs(check)} a run, wall). ` +
			`Against the bare loop making the same sessions, the engine costs ${fmtX(median(sameRatio))}: that is the evaluator's own work; what it asks of pi is small because the handoff tools are neither registered nor declared until a turn's watermark fires (docs/decisions.md, "Handoff tools arrive with the watermark").`,
	);
	return [
		{
			figure: `1. engine / bare, wall, ${n.toLocaleString("en")} turns at concurrency ${concurrency} (median of ${ENGINE.rounds} rounds)`,
			value: `${fmtX(r)} (rounds ${spread(ratio, fmtX)})`,
			target: `≤ ${ENGINE.target}`,
			met,
		},
		{
			figure: "   engine / bare, CPU time of the main thread",
			value: `${fmtX(rt)} (rounds ${spread(threadRatio, fmtX)})`,
			target: `≤ ${ENGINE.target}`,
			met: threadMet,
		},
		{
			figure: "   engine / bare, CPU time of the process (all threads)",
			value: `${fmtX(rc)} (rounds ${spread(cpuRatio, fmtX)})`,
			target: `≤ ${ENGINE.target}`,
			met: cpuMet,
		},
		{
			figure: "   engine / bare making the engine's spawn request and ask options, main-thread CPU",
			value: `${fmtX(median(sameRatio))} (rounds ${spread(sameRatio, fmtX)})`,
		},
		{
			figure: "   main-thread CPU per turn: bare / bare making the engine's request / engine",
			value: `${fmtMs(bare)} / ${fmtMs(asked)} / ${fmtMs(engine)}`,
		},
		{
			figure: "   engine's added CPU per turn: asked of pi / the evaluator's own work",
			value: `${plus(asked - bare)} / ${plus(engine - asked)}`,
		},
		{
			figure: "   the evaluator alone (check + run on sessions answering without pi), main-thread CPU per turn / bare",
			value: `${fmtMs(perTurn(thread(sides.stubbed)))} (${fmtX(1 + perTurn(thread(sides.stubbed)) / bare)})`,
		},
		{
			figure: "   wall per turn: bare / engine",
			value: `${fmtMs(perTurn(wall(sides.bare)))} / ${fmtMs(perTurn(wall(sides.engine)))}`,
		},
		{
			figure: `   engine run: check of the ${n.toLocaleString("en")}-item flow / resolve + runFlow, wall`,
			value: `${fmtMs(check)} / ${fmtMs(median(spans.run))}`,
		},
	];
}

async function parallelEfficiency(box: Sandbox): Promise<Row[]> {
	const { items: n, concurrency, latencyMs, single } = PARALLEL;
	const waves = Math.ceil(n / concurrency);
	const script = okScript(latencyMs);
	const wide = mapFlow(itemsOf(n), concurrency);
	const serial = mapFlow(itemsOf(single), 1);
	let requests = 0;
	const sides = await interleave(PARALLEL.rounds, PARALLEL.warmup, {
		wide: async () => {
			const host = await box.host(script);
			const ran = await runPipeline(box, host, wide);
			requests = (host.scripted?.calls() ?? 0) / n;
			return { ms: ran.totalMs, cpuMs: ran.cpuMs, threadMs: ran.threadMs };
		},
		// The ideal for this round: `waves` turns one after another, each at the per-turn time measured at
		// concurrency 1 (t1 = wall of `single` turns in a row / `single`).
		ideal: async () => {
			const host = await box.host(script);
			const ran = await runPipeline(box, host, serial);
			const scale = waves / single;
			return { ms: ran.totalMs * scale, cpuMs: ran.cpuMs * scale, threadMs: ran.threadMs * scale };
		},
	});
	dump("2", sides);
	const ratio = ratios(wall(sides.wide), wall(sides.ideal));
	const r = median(ratio);
	const t1 = median(wall(sides.ideal)) / waves;
	const wallMs = median(wall(sides.wide));
	const cpuPerTurn = median(cpu(sides.wide)) / n;
	const nominal = waves * latencyMs * requests;
	const lost = wallMs / waves - t1;
	const met = r <= PARALLEL.target;
	readings.push(
		`**Parallel efficiency ${fmtX(r)}** (target ≤ ${PARALLEL.target}, ${met ? "met" : "missed"}): ${n} turns at concurrency ${concurrency} take ${fmtX(r)} the time of ${waves} single turns in a row ` +
			`(t1 = ${fmtMs(t1)} for a ${latencyMs} ms answer, ${requests} request a turn). A wave loses ${fmtMs(lost)} against t1: ` +
			`the turns' own CPU work (${fmtMs(cpuPerTurn)} a turn: session creation, request, close) runs one turn at a time on one event loop while their answers wait, ` +
			`which bounds the ratio near 1 + (${concurrency} − 1) × CPU per turn / t1 = ${fmtX(1 + ((concurrency - 1) * cpuPerTurn) / t1)} when a wave's turns start together; it grows with the turns' CPU and the machine's load.`,
	);
	return [
		{
			figure: `2. wall(${n} items @ ${concurrency}) / (${waves} waves × t1), latencyMs ${latencyMs} (median of ${PARALLEL.rounds} paired rounds)`,
			value: `${fmtX(r)} (rounds ${spread(ratio, fmtX)})`,
			target: `≤ ${PARALLEL.target}`,
			met,
		},
		{ figure: `   t1: one turn at concurrency 1 (${single} in a row, ${requests} request/turn)`, value: fmtMs(t1) },
		{
			figure: `   wall of ${n} @ ${concurrency}; against the nominal ${waves} × ${latencyMs} ms × ${requests}`,
			value: `${fmtMs(wallMs)}; ${fmtX(wallMs / nominal)}`,
		},
		{ figure: `   CPU per turn in the ${n} @ ${concurrency} run`, value: fmtMs(cpuPerTurn) },
	];
}

async function inProcessVersusProcess(box: Sandbox): Promise<Row[]> {
	const proc = await prepareProcessTurn(box.root, box.cwd, box.env);
	const host = await box.host(okScript(0));
	const agent = box.agent("scout");
	let turn = 0;
	const inProcess = () =>
		timed(async () => {
			const sub = await host.spawn({ agent, model: "scripted", cwd: box.cwd });
			try {
				const r = await sub.ask(taskFor("item-1"), { label: `inproc[${++turn}]` });
				if (!r.ok) throw new Error(`bench: an in-process turn failed: ${r.error}`);
			} finally {
				await sub.close();
			}
		});
	// A run's host is warm after its first few turns; a process per turn never is.
	for (let i = 0; i < PROCESS.inProcessWarmup; i++) await inProcess();
	const sides = await interleave(PROCESS.turns, PROCESS.warmup, {
		// The child's CPU is not this process's: only wall time is compared here.
		process: async () => ({ ms: await proc.turn(taskFor("item-1")), cpuMs: Number.NaN, threadMs: Number.NaN }),
		inProcess,
		nodeStart: async () => ({ ms: await proc.nodeStart(), cpuMs: Number.NaN, threadMs: Number.NaN }),
	});
	dump("3", sides);
	const ratio = ratios(wall(sides.process), wall(sides.inProcess));
	const r = median(ratio);
	const processMs = median(wall(sides.process));
	const inMs = median(wall(sides.inProcess));
	const nodeMs = median(wall(sides.nodeStart));
	notes.push(
		`The process side's extension imports \`${proc.specifier}\`${proc.specifier === "@earendil-works/pi-ai" ? " (the subpath `@earendil-works/pi-ai/providers/faux` does not resolve for an extension in a temp folder: the pi CLI maps only pi-ai's root, compat, models, oauth and providers/all, and the root exports `fauxProvider`)" : ""}; one turn is \`${proc.commandLine}\`.`,
	);
	readings.push(
		`**A process per turn costs ${fmtX(r)}** an in-process turn: ${fmtMs(processMs)} against ${fmtMs(inMs)}; ` +
			`a bare Node start alone is ${fmtMs(nodeMs)} (${fmtX(nodeMs / inMs)} an in-process turn), the rest is loading pi in every process.`,
	);
	return [
		{
			figure: `3. pi -p process / in-process, per turn (median of ${PROCESS.turns} paired turns, sequential)`,
			value: `${fmtX(r)} (turns ${spread(ratio, fmtX)})`,
		},
		{ figure: "   per turn, in-process (spawn + ask + close)", value: fmtMs(inMs) },
		{ figure: "   per turn, one `pi -p` process", value: fmtMs(processMs) },
		{ figure: '   of which: a bare `node -e ""` start', value: fmtMs(nodeMs) },
	];
}

function table(rows: Row[]): string {
	const head = ["figure", "this run", "target", ""];
	const body = rows.map((r) => [
		r.figure.replace(/^ {3}/, "  ↳ "),
		r.value,
		r.target ?? "",
		r.met === undefined ? "" : r.met ? "met" : "**MISSED**",
	]);
	return [head, head.map(() => "---"), ...body].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

const started = performance.now();
const m = machine();
const box = sandbox();
const rows: Row[] = [];
try {
	if (only.includes("1")) rows.push(...(await engineOverhead(box)));
	if (only.includes("2")) rows.push(...(await parallelEfficiency(box)));
	if (only.includes("3")) rows.push(...(await inProcessVersusProcess(box)));
} finally {
	box.cleanup();
}
const elapsed = (performance.now() - started) / 1000;

const machineLine = describeMachine(m);
const text = table(rows);
console.log(`pi-flows engine bench: ${machineLine}\n`);
console.log(text);
console.log("");
for (const r of readings) console.log(`- ${r.replace(/\*\*/g, "")}`);
for (const n of notes) console.log(`- ${n}`);
console.log(
	`\n(${elapsed.toFixed(0)} s; medians of interleaved rounds on a shared machine: read the ratios, not the times)`,
);

const missed = rows.filter((r) => r.met === false);
if (write) {
	const doc = join(PACKAGE_ROOT, "docs", "performance.md");
	replaceSection(
		doc,
		"Engine",
		[
			"What the flow engine costs over bare pi sessions, how well a map's turns overlap, and what an in-process subagent saves over one `pi -p` process per turn. Every comparison runs side by side in one process, in rounds whose order alternates; figures are medians, ratios are medians of per-round ratios. The machine is shared and noisy: read the ratios, not the times.",
			"",
			"```sh",
			"node bench/engine.ts            # print the table (npm run bench:engine)",
			"node bench/engine.ts --write    # and replace this section",
			"```",
			"",
			`Measured on ${machineLine}, ${loadavg()[0].toFixed(1)} at the end (the whole bench took ${elapsed.toFixed(0)} s).`,
			"",
			text,
			"",
			...readings.map((r) => `- ${r}`),
			...notes.map((n) => `- ${n}`),
			"",
			"How each side is timed: (1) the engine side is `checkFlowText` + `resolveModels` + `runFlow` of a flow with one literal `map:` of 1,000 items, each one turn of the shipped `scout` on the scripted model answering `ok` at once; the bare side spawns, asks and closes the same 1,000 sessions through `openHost`'s `spawn`, 8 at a time with `mapConcurrent`; a third side is the same bare loop making exactly the spawn request and ask options the engine makes (captured from a one-item run: its tools, custom tools and watchdogs), so the overhead splits into what the engine asks of pi and the evaluator's own work; each side opens a fresh host per round outside its clock, and the three rotate order every round; each is timed in wall time, in the main thread's CPU time (`process.threadCpuUsage`: two identical sides agree within about 1%) and in the process's CPU time (with the GC's helper threads, whose concurrent work started by one side's garbage may run in the next: identical sides differ by up to 10%). (2) t1 is the wall of 8 such turns at `concurrency: 1` with `latencyMs: 50`, divided by 8. (3) Turns run one at a time, alternating process, in-process and a bare Node start.",
		].join("\n"),
	);
	console.log(`\nwrote the \`## Engine\` section of ${doc}`);
}
if (missed.length) {
	console.log(`\ntarget missed: ${missed.map((r) => r.figure.trim().replace(/ \(median of .*$/, "")).join("; ")}`);
	process.exitCode = 1;
}
