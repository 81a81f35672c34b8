/**
 * What tracing costs on the engine bench's run (bench/engine.ts, part 1): a literal `map` of 1,000 items at
 * `concurrency: 8`, each one turn of the shipped `scout` on the scripted model, through check, resolve and
 * `runFlow`, four sides side by side in this one process, in rotating order, medians of per-round ratios:
 *
 *   untraced   the run with no trace attached at all (the baseline)
 *   again      the same again: the noise floor of two identical sides
 *   off        what the runner does with no SDK registered: `traceRun` on the global API (a no-op), which
 *              says it is not recording, so nothing is attached and no request events are asked for
 *   on         a real SDK: the trace provider, a batching processor and the official OTLP/HTTP protobuf
 *              exporter sending every span (1,000 visits, 1,000 requests, the map and the root) to a
 *              receiver in a child process that reads and drops them; the final flush is on the clock
 *
 * A second part times the trace's own work alone, so the ratio is not lost in the machine's noise: the
 * events of one real run are captured, then fed again and again into a trace exporting as the `on` side
 * does (span creation, batching, protobuf, the HTTP sends and the final flush, all on this thread), and a
 * life of the `off` side (a no-op root made and ended) is timed ten thousand times. Each cost is put
 * against the untraced run's own main-thread CPU from the first part: 1 + cost / run.
 *
 * Targets (issue 31): off ≤ 1.01, on ≤ 1.05 the untraced run, on the main thread's CPU time (the steadiest
 * measure on a loaded machine; the exporter's work is on that thread). Judged on the second part when the
 * first part's noise floor (two identical sides) is further from 1 than the target's margin; both printed.
 *
 *   node bench/trace.ts            print the table (npm run bench:trace)
 *   node bench/trace.ts --rounds=5 fewer rounds (default 9, after 2 of warm-up)
 */
import { spawn } from "node:child_process";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { exportingProvider } from "../src/telemetry/export/sdk.ts";
import { traceRun } from "../src/telemetry/index.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { interleave, median, range, ratios, type Sample, startClock } from "./lib/rounds.ts";
import type { CheckedFlow } from "../src/flow/index.ts";
import type { FlowEvent } from "../src/runtime/index.ts";
import { type AroundRun, itemsOf, mapFlow, okScript, runPipeline, sandbox } from "./lib/sandbox.ts";

const ITEMS = 1000;
const CONCURRENCY = 8;
const ROUNDS = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 9);
const WARMUP = 2;
const TARGET = { off: 1.01, on: 1.05 };

type Side = "untraced" | "again" | "off" | "on" | "events" | "spans";

/** A receiver in its own process, so reading the exports costs this process nothing: it reads and drops. */
async function sink(): Promise<{ url: string; received: () => Promise<number>; close(): void }> {
	const code = `let bytes = 0;
const server = require("node:http").createServer((q, s) => {
	if (q.url === "/count") { s.end(String(bytes)); return; }
	q.on("data", (d) => (bytes += d.length));
	q.on("end", () => { s.writeHead(200, { "content-type": "application/x-protobuf" }); s.end(); });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
	const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
	const port = await new Promise<string>((resolve) => child.stdout.once("data", (d) => resolve(String(d).trim())));
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		received: async () => Number(await (await fetch(`${url}/count`)).text()),
		close: () => child.kill(),
	};
}

const fmtX = (x: number) => `${x.toFixed(3)}×`;
const spread = (xs: number[]) => {
	const [lo, hi] = range(xs);
	return `${fmtX(lo)}–${fmtX(hi)}`;
};

const m = machine();
const box = sandbox();
const receiver = await sink();
const script = okScript(0);
const flow = mapFlow(itemsOf(ITEMS), CONCURRENCY);
let spans = 0;
try {
	const side = (around?: AroundRun, after?: () => Promise<void>) => async (): Promise<Sample> => {
		const host = await box.host(script);
		const ran = await runPipeline(box, host, flow, around);
		if ((host.scripted?.calls() ?? 0) !== ITEMS || host.open() !== 0)
			throw new Error("bench: the run did not make its turns");
		await after?.();
		return { ms: ran.totalMs, cpuMs: ran.cpuMs, threadMs: ran.threadMs };
	};
	/** What a traced side attaches: the trace's listener, and the request events when it records. */
	const traced =
		(tracer?: () => TracerProvider, flush?: boolean): AroundRun =>
		(checked) => {
			const p = tracer?.();
			const t = traceRun({
				flow: checked.name.value,
				bounds: checked.bounds,
				bound: checked.bound,
				...(p ? { tracer: p.getTracer("pi-flows") } : {}),
			});
			return {
				options: { ...(t.onEvent ? { onEvent: t.onEvent } : {}), ...(t.recording ? { requestEvents: true } : {}) },
				done: async (r) => {
					t.end(r);
					if (flush) await p?.forceFlush();
				},
			};
		};
	// The tracer an `on` round uses: a fresh provider per round, shut down outside the clock.
	let provider: TracerProvider | undefined;
	let exported = 0;
	// The provider the CLI registers (src/telemetry/export/sdk.ts), with the exporter the environment would give.
	const exporting = () => {
		provider = exportingProvider(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }));
		return provider;
	};
	const diagnostic: Partial<Record<Side, () => Promise<Sample>>> = process.argv.includes("--explain")
		? {
				events: side(() => ({ options: { requestEvents: true, onEvent: () => {} } })),
				spans: side(traced(() => new TracerProvider({}))),
			}
		: {};
	const sides: Partial<Record<Side, Sample[]>> = await interleave(ROUNDS, WARMUP, {
		...(diagnostic as Record<string, () => Promise<Sample>>),
		untraced: side(),
		again: side(),
		off: side(traced()),
		on: side(traced(exporting, true), async () => {
			await provider?.shutdown();
			const bytes = await receiver.received();
			spans = bytes - exported;
			exported = bytes;
		}),
	});
	const thread = (k: Side) => (sides[k] ?? []).map((x) => x.threadMs);
	const wall = (k: Side) => (sides[k] ?? []).map((x) => x.ms);
	const rows = (
		[
			["again / untraced (noise floor)", "again"],
			["off / untraced (no SDK)", "off", TARGET.off],
			["on / untraced (SDK + OTLP export)", "on", TARGET.on],
			["  ↳ request events alone / untraced", "events"],
			["  ↳ spans, no exporter / untraced", "spans"],
		] as [string, Side, number?][]
	).filter(([, k]) => sides[k]);
	console.log(`pi-flows trace bench: ${describeMachine(m)}\n`);
	console.log(
		`${ITEMS.toLocaleString("en")}-item map at concurrency ${CONCURRENCY}, ${ROUNDS} rounds after ${WARMUP} of warm-up; the 'on' side exported ${(spans / 1024).toFixed(0)} KiB of protobuf a round\n`,
	);
	console.log("| side | main-thread CPU | rounds | wall | target | |");
	console.log("| --- | --- | --- | --- | --- | --- |");
	let missed = false;
	const noise = Math.abs(median(ratios(thread("again"), thread("untraced"))) - 1);
	for (const [name, k, target] of rows) {
		const cpu = ratios(thread(k), thread("untraced"));
		const r = median(cpu);
		const met = target === undefined ? "" : r <= target ? "met" : noise > target - 1 ? "within noise" : "**MISSED**";
		if (target !== undefined && r > target && noise <= target - 1) missed = true;
		console.log(
			`| ${name} | ${fmtX(r)} | ${spread(cpu)} | ${fmtX(median(ratios(wall(k), wall("untraced"))))} | ${target ? `≤ ${target}` : ""} | ${met} |`,
		);
	}
	const perTurn = (k: Side) => `${((median(thread(k)) / ITEMS) * 1000).toFixed(0)} µs`;
	console.log(
		`\nmain-thread CPU per turn: untraced ${perTurn("untraced")}, off ${perTurn("off")}, on ${perTurn("on")}`,
	);

	// Part 2: the trace's own work, alone, on the events of one real run.
	let checkedFlow: CheckedFlow | undefined;
	const events: FlowEvent[] = [];
	const host = await box.host(script);
	await runPipeline(box, host, flow, (checked) => {
		checkedFlow = checked;
		const t = traceRun({ flow: checked.name.value, tracer: new TracerProvider({}).getTracer("pi-flows") });
		return {
			options: {
				onEvent: (e) => {
					events.push(e);
					t.onEvent?.(e);
				},
				requestEvents: true,
			},
			done: async (r) => t.end(r),
		};
	});
	const f = checkedFlow as CheckedFlow;
	const options = { flow: f.name.value, bounds: f.bounds, bound: f.bound };
	const LIVES = 10_000;
	const offClock = startClock();
	for (let i = 0; i < LIVES; i++) traceRun(options).end();
	const offPerLife = offClock().threadMs / LIVES;
	const replay = async (make: () => TracerProvider): Promise<number[]> => {
		const costs: number[] = [];
		for (let i = 0; i < WARMUP + ROUNDS; i++) {
			const p = make();
			const clock = startClock();
			const t = traceRun({ ...options, tracer: p.getTracer("pi-flows") });
			for (const e of events) t.onEvent?.(e);
			t.end({ ok: true });
			await p.forceFlush();
			const cost = clock().threadMs;
			await p.shutdown();
			if (i >= WARMUP) costs.push(cost);
		}
		return costs;
	};
	const onCosts = await replay(exporting);
	const madeCosts = await replay(() => new TracerProvider({}));
	const run = median(thread("untraced"));
	const alone = { off: 1 + offPerLife / run, on: 1 + median(onCosts) / run };
	console.log(
		`\nThe trace's own work, timed alone (${events.length.toLocaleString("en")} events of one run, fed ${ROUNDS} times into an exporting trace; ${LIVES.toLocaleString("en")} no-op lives):\n`,
	);
	console.log("| side | main-thread CPU | against the untraced run | target | |");
	console.log("| --- | --- | --- | --- | --- |");
	const floor = Math.abs(median(ratios(thread("again"), thread("untraced"))) - 1);
	const perRun = (xs: number[]) =>
		`${((median(xs) / ITEMS) * 1000).toFixed(0)} µs a turn (${median(xs).toFixed(0)} ms a run)`;
	for (const [name, cost, ratio, target] of [
		["off: one life, no SDK", `${(offPerLife * 1000).toFixed(1)} µs a life`, alone.off, TARGET.off],
		["on: every span made, batched and sent", perRun(onCosts), alone.on, TARGET.on],
		["  ↳ of which the spans made, none sent", perRun(madeCosts), 1 + median(madeCosts) / run, undefined],
	] as [string, string, number, number | undefined][]) {
		const met = target === undefined || ratio <= target;
		console.log(
			`| ${name} | ${cost} | ${fmtX(ratio)} | ${target ? `≤ ${target}` : ""} | ${target ? (met ? "met" : "**MISSED**") : ""} |`,
		);
		if (!met) missed = true;
	}
	if (floor > TARGET.off - 1)
		console.log(
			`\nThe first part's noise floor is ${(floor * 100).toFixed(1)}% (two identical sides): its ratios cannot resolve a 1% target on this machine now; the second part judges.`,
		);
	if (missed) process.exitCode = 1;
} finally {
	receiver.close();
	box.cleanup();
}
