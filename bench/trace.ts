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
 * A second part times the trace's own work alone, in the same rounds, so the ratio is not lost in the
 * machine's noise: the events of one real run are captured once, then fed each round into a fresh trace
 * exporting as the `on` side does (span creation, batching, protobuf, the HTTP sends and the final
 * flush, all on this thread), and ten thousand lives of the `off` side (a no-op root made and ended) are
 * timed. Each is put against the same round's untraced run: 1 + cost / run, medians over the rounds.
 *
 * Targets (issue 31): off ≤ 1.01, on ≤ 1.05 the untraced run, on the main thread's CPU time (the steadiest
 * measure on a loaded machine; the exporter's work is on that thread), judged on the second part; the
 * first part's side-by-side ratios are printed with their noise floor (two identical sides) beside them.
 * `--explain` adds two sides that split the `on` cost: the request events alone (asked, heard by nobody)
 * and the spans without an exporter (a provider with no processor).
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
import type { CheckedFlow } from "../src/language/index.ts";
import type { FlowEvent } from "../src/runtime/index.ts";
import { type AroundRun, itemsOf, mapFlow, okScript, runPipeline, sandbox } from "./lib/sandbox.ts";

const ITEMS = 1000;
const CONCURRENCY = 8;
const ROUNDS = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 9);
const WARMUP = 2;
const TARGET = { off: 1.01, on: 1.05 };

type Side = "untraced" | "again" | "off" | "on" | "events" | "spans" | "replayOn" | "replayMade" | "lives";

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
	// The replays send to a receiver of their own, so the first one counts the `on` side's bytes alone.
	const replaySink = await sink();
	const replaying = () => exportingProvider(new OTLPTraceExporter({ url: `${replaySink.url}/v1/traces` }));
	// The events of one real run, to feed the trace alone (part 2).
	let checkedFlow: CheckedFlow | undefined;
	const events: FlowEvent[] = [];
	const capture = await box.host(script);
	await runPipeline(box, capture, flow, (checked) => {
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
	/** The run's events fed into a fresh trace on `make`'s provider, flushed: the trace's own work alone. */
	const replay = (make: () => TracerProvider) => async (): Promise<Sample> => {
		const p = make();
		const clock = startClock();
		const t = traceRun({ ...options, tracer: p.getTracer("pi-flows") });
		for (const e of events) t.onEvent?.(e);
		t.end({ ok: true });
		await p.forceFlush();
		const sample = clock();
		await p.shutdown();
		return sample;
	};
	const LIVES = 10_000;
	/** Ten thousand lives of the `off` side: a no-op root made and ended. */
	const noOpLives = async (): Promise<Sample> => {
		const clock = startClock();
		for (let i = 0; i < LIVES; i++) traceRun(options).end();
		return clock();
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
		replayOn: replay(replaying),
		replayMade: replay(() => new TracerProvider({})),
		lives: noOpLives,
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
	const noise = Math.abs(median(ratios(thread("again"), thread("untraced"))) - 1);
	for (const [name, k, target] of rows) {
		const cpu = ratios(thread(k), thread("untraced"));
		const r = median(cpu);
		const met = target === undefined ? "" : r <= target ? "met" : noise > target - 1 ? "within noise" : "missed";
		console.log(
			`| ${name} | ${fmtX(r)} | ${spread(cpu)} | ${fmtX(median(ratios(wall(k), wall("untraced"))))} | ${target ? `≤ ${target}` : ""} | ${met} |`,
		);
	}
	const perTurn = (k: Side) => `${((median(thread(k)) / ITEMS) * 1000).toFixed(0)} µs`;
	console.log(
		`\nmain-thread CPU per turn: untraced ${perTurn("untraced")}, off ${perTurn("off")}, on ${perTurn("on")}`,
	);

	// Part 2, from the same rounds: 1 + the trace's own work / that round's untraced run.
	const added = (k: Side, per = 1) => thread(k).map((cost, i) => 1 + cost / per / (thread("untraced")[i] as number));
	console.log(
		`\nThe trace's own work, timed alone in the same rounds (${events.length.toLocaleString("en")} events of one run fed into a fresh exporting trace; ${LIVES.toLocaleString("en")} no-op lives), against each round's untraced run:\n`,
	);
	console.log("| side | main-thread CPU | against the untraced run | rounds | target | |");
	console.log("| --- | --- | --- | --- | --- | --- |");
	const cost = (k: Side) => median(thread(k));
	let missed = false;
	for (const [name, what, ratio, target] of [
		[
			"off: one life, no SDK",
			`${((cost("lives") / LIVES) * 1000).toFixed(1)} µs a life`,
			added("lives", LIVES),
			TARGET.off,
		],
		[
			"on: every span made, batched and sent",
			`${((cost("replayOn") / ITEMS) * 1000).toFixed(0)} µs a turn`,
			added("replayOn"),
			TARGET.on,
		],
		[
			"  ↳ of which the spans made, none sent",
			`${((cost("replayMade") / ITEMS) * 1000).toFixed(0)} µs a turn`,
			added("replayMade"),
			undefined,
		],
	] as [string, string, number[], number | undefined][]) {
		const r = median(ratio);
		const met = target === undefined || r <= target;
		console.log(
			`| ${name} | ${what} | ${fmtX(r)} | ${spread(ratio)} | ${target ? `≤ ${target}` : ""} | ${target ? (met ? "met" : "**MISSED**") : ""} |`,
		);
		if (!met) missed = true;
	}
	if (noise > TARGET.off - 1)
		console.log(
			`\nThe first part's noise floor is ${(noise * 100).toFixed(1)}% (two identical sides): its ratios cannot resolve a 1% target on this machine now; the targets are judged on the second part.`,
		);
	if (missed) process.exitCode = 1;
	replaySink.close();
} finally {
	receiver.close();
	box.cleanup();
}
