/**
 * `npm run bench`: every benchmark in one run, printed as one table of ratios measured side by side (the
 * machine is shared and noisy: no absolute time is a claim), and written to docs/performance.md with the
 * machine and the date. Each bench also keeps its own detailed section there.
 *
 *   node bench/run.ts [--no-write]
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceSection } from "./lib/perf-doc.ts";

const here = dirname(fileURLToPath(import.meta.url));
const doc = join(here, "..", "docs", "performance.md");
const write = !process.argv.includes("--no-write");

function run(script: string, args: string[] = [], node: string[] = []): { out: string; ok: boolean; ms: number } {
	const start = performance.now();
	const r = spawnSync(process.execPath, [...node, join(here, script), ...args], {
		encoding: "utf8",
		maxBuffer: 64 * 2 ** 20,
	});
	process.stderr.write(
		`bench: ${script} ${args.join(" ")} → exit ${r.status} in ${((performance.now() - start) / 1000).toFixed(0)} s\n`,
	);
	return { out: r.stdout ?? "", ok: r.status === 0, ms: performance.now() - start };
}

const rows: [string, string, string, string][] = [];
const add = (figure: string, value: string, target: string, verdict: string) =>
	rows.push([figure, value, target, verdict]);

const check = run("check.ts");
const checkRatio = /median ratio ([\d.]+)×/.exec(check.out)?.[1];
add(
	"check / bare parse of the same files (YAML + Markdown)",
	checkRatio ? `${checkRatio}×` : "?",
	"≤ 3",
	checkRatio && Number(checkRatio) <= 3 ? "met" : "missed",
);

const engine = run("engine.ts", write ? ["--write"] : []);
const cell = (label: RegExp) =>
	engine.out
		.split("\n")
		.find((l) => label.test(l))
		?.split("|")[2]
		?.trim() ?? "?";
const engineWall = cell(/1\. engine \/ bare, wall/);
const engineThread = cell(/engine \/ bare, CPU time of the main thread/);
const engineCpu = cell(/engine \/ bare, CPU time of the process/);
const engineSame = cell(/engine \/ bare making the engine's spawn request/);
const parallel = cell(/2\. wall\(64 items/);
const perProcess = cell(/3\. pi -p process/);
add(
	"engine / bare SDK sessions, 1,000 turns at concurrency 8 (wall)",
	engineWall,
	"≤ 1.2",
	parseFloat(engineWall) <= 1.2 ? "met" : "missed",
);
add(
	"engine / bare SDK sessions (CPU of the main thread)",
	engineThread,
	"≤ 1.2",
	parseFloat(engineThread) <= 1.2 ? "met" : "missed",
);
add(
	"engine / bare SDK sessions (CPU of the process)",
	engineCpu,
	"≤ 1.2",
	parseFloat(engineCpu) <= 1.2 ? "met" : "missed",
);
add("engine / bare sessions with the engine's tools and watchdogs (main-thread CPU)", engineSame, "", "");
add(
	"64-item map at concurrency 8, 50 ms turns / ideal wall",
	parallel,
	"≤ 1.15",
	parseFloat(parallel) <= 1.15 ? "met" : "missed",
);
add("one `pi -p` process per turn / in-process turn", perProcess, "", "");

const context = JSON.parse(run("context.ts", ["--json"]).out || "{}") as {
	handoffsGrowth?: number;
	historyGrowth?: number;
	driveGrowth?: number;
};
add(
	"input tokens, step 20 / step 2, with handoff documents",
	`${context.handoffsGrowth?.toFixed(2)}×`,
	"flat",
	(context.handoffsGrowth ?? 9) < 1.2 ? "met" : "missed",
);
add("input tokens, step 20 / step 2, with the whole history", `${context.historyGrowth?.toFixed(2)}×`, "(grows)", "");
add(
	"driver input tokens, turn 10 / turn 2, with the watermark",
	`${context.driveGrowth?.toFixed(2)}×`,
	"<= 1.2",
	(context.driveGrowth ?? 9) <= 1.2 ? "met" : "missed",
);

const resume = JSON.parse(run("resume.ts", ["--json"], ["--expose-gc"]).out || "{}") as {
	resumeMs?: number;
	aloneMs?: number;
	resumePeakMb?: number;
	alonePeakMb?: number;
	visits?: number;
};
add(
	`resume of a ${resume.visits ?? 10000}-visit journal / the remaining visit alone (time)`,
	`${((resume.resumeMs ?? 0) / (resume.aloneMs ?? 1)).toFixed(1)}×`,
	"",
	"",
);
add("… (peak heap)", `${((resume.resumePeakMb ?? 0) / (resume.alonePeakMb ?? 1)).toFixed(1)}×`, "", "");

const memory = JSON.parse(run("memory.ts", ["--json"], ["--expose-gc"]).out || "{}") as {
	samples?: { turns: number; rssMb: number; heapMb: number; open: number }[];
	heapGrowth?: number;
};
const samples = memory.samples ?? [];
add(
	"heap after 10,000 turns / after 1,000 (one run)",
	`${memory.heapGrowth?.toFixed(2)}×`,
	"flat",
	(memory.heapGrowth ?? 9) < 1.3 ? "met" : "missed",
);
add("RSS after 1,000 / 5,000 / 10,000 turns", samples.map((s) => `${s.rssMb.toFixed(0)} MB`).join(" / "), "", "");
add(
	"sessions open at each mark (8 = the map's concurrency)",
	samples.map((s) => s.open).join(" / "),
	"≤ 8",
	samples.every((s) => s.open <= 8) ? "met" : "missed",
);

const machine = `${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB, node ${process.version}, load ${loadavg()[0].toFixed(1)}`;
const date = new Date().toISOString().slice(0, 10);
const table = [
	"| figure | this run | target | |",
	"| --- | --- | --- | --- |",
	...rows.map((r) => `| ${r.join(" | ")} |`),
].join("\n");
console.log(`${machine}, ${date}\n\n${table}`);
if (write) {
	replaceSection(
		doc,
		"Summary",
		[
			`Every figure of \`npm run bench\`, measured side by side in one run on ${machine}, ${date}. The machine is shared: the ratios are the claims, never the times.`,
			"",
			table,
			"",
			"Memory: the heap stays flat over 10,000 turns (what remains is the run's own record of its visits: each visit's outcome and the map's output); RSS grows with V8's heap reservations, not with a leak: every session is disposed (the sessions open stay at the map's concurrency).",
			"",
			`Details: \`## Engine\` and \`## Check\` below; \`node bench/context.ts\`, \`node --expose-gc bench/resume.ts\` and \`node --expose-gc bench/memory.ts\` print their own tables.`,
		].join("\n"),
	);
}
