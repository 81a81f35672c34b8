/**
 * Resume of a run whose journal holds 10,000 ended visits (a map of 10,000 items, all done, and a last
 * node that was cut): time and peak memory of the resume, versus running the remaining visit alone, side
 * by side in one run.
 *
 *   node --expose-gc bench/resume.ts [--visits 10000] [--json]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoster } from "../src/agents/index.ts";
import { resolveModels } from "../src/engine/index.ts";
import { runFlow } from "../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../src/load/index.ts";
import { openHost, readScript } from "../src/pi/index.ts";
import { resumeRun, snapshotOf, writeSnapshot } from "../src/runs/index.ts";
import { emptyUsage } from "../src/runtime/usage.ts";

const arg = (name: string, fallback: number) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg("visits", 10_000);
const gc = (globalThis as { gc?: () => void }).gc;

/** Peak heap while `fn` runs, sampled every 5 ms. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakMb: number }> {
	gc?.();
	let peak = process.memoryUsage().heapUsed;
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().heapUsed);
	}, 5);
	const start = performance.now();
	try {
		const value = await fn();
		return {
			value,
			ms: performance.now() - start,
			peakMb: (Math.max(peak, process.memoryUsage().heapUsed) - 0) / 2 ** 20,
		};
	} finally {
		clearInterval(timer);
	}
}

const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-resume-"));
try {
	const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
	const items = Array.from({ length: N }, (_, i) => `i${i}`);
	const text = `---\nname: r\ndescription: bench\ninput: string\nnodes:\n  - id: work\n    map: [${items.join(", ")}]\n    concurrency: 8\n    do:\n      - id: act\n        agent: scout\n  - id: last\n    agent: synthesiser\n---\n\n## act\n\nAct.\n\n## last\n\nSum up.\n`;
	const alone = `---\nname: a\ndescription: bench\ninput: string\nnodes:\n  - id: last\n    agent: synthesiser\n---\n\n## last\n\nSum up.\n`;
	const roster = loadRoster(root, {}, env);
	const checked = checkFlowText(text, join(root, "r.md"), roster, catalogueOptions(root, {}, env));
	const single = checkFlowText(alone, join(root, "a.md"), roster, catalogueOptions(root, {}, env));
	if (!checked.value || !single.value) throw new Error("bench flows do not check");
	// A journal as a killed run leaves it: every item ended, the map and the last node not.
	const runDir = join(root, "run");
	mkdirSync(runDir);
	writeSnapshot(runDir, snapshotOf(checked.value, "go", new Map(), { cwd: root, somebodyThere: false }));
	const usage = emptyUsage();
	const lines = [
		JSON.stringify({ type: "life_start", life: 1, at: new Date().toISOString(), pid: 1, host: hostname() }),
	];
	lines.push(JSON.stringify({ type: "visit_start", life: 1, path: "work", node: "work", kind: "map", at: "" }));
	lines.push(JSON.stringify({ type: "map_items", path: "work", items }));
	for (let i = 1; i <= N; i++)
		lines.push(
			JSON.stringify({
				type: "visit_end",
				life: 1,
				path: `work[${i}]/act`,
				node: "act",
				kind: "agent",
				ended: { ok: true, output: `done ${i}` },
				usage,
				at: "",
			}),
		);
	writeFileSync(join(runDir, "journal.jsonl"), `${lines.join("\n")}\n`);
	const script = readScript('turns:\n  "*":\n    - say: summed\n', "bench").value;
	if (!script) throw new Error("bad script");
	const rounds = [] as { resume: number; alone: number; resumePeak: number; alonePeak: number }[];
	for (let r = 0; r < 3; r++) {
		// A host per round: a visit's script cursor lives as long as its host.
		const host = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
		const _models = (flow: typeof checked.value) => {
			const m = resolveModels(flow as NonNullable<typeof checked.value>, host.resolveModel, "scripted");
			return m.ok ? m.models : m.errors;
		};
		const lone = await measured(async () => {
			const m = resolveModels(single.value as NonNullable<typeof single.value>, host.resolveModel, "scripted");
			return runFlow(single.value as NonNullable<typeof single.value>, "go", {
				spawn: host.spawn,
				models: m.ok ? m.models : new Map(),
				cwd: root,
			});
		});
		// Each round resumes a fresh copy of the journal: a finished resume would refuse to run again.
		writeFileSync(join(runDir, "journal.jsonl"), `${lines.join("\n")}\n`);
		const host2 = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
		const models2 = (flow: typeof checked.value) => {
			const m = resolveModels(flow as NonNullable<typeof checked.value>, host2.resolveModel, "scripted");
			return m.ok ? m.models : m.errors;
		};
		const resumed = await measured(() =>
			resumeRun({
				runDir,
				cwd: root,
				spawn: host2.spawn,
				models: models2 as never,
				somebodyThere: false,
				inDoubt: "rerun",
				takeLock: true,
			}),
		);
		if ("refused" in resumed.value) throw new Error(resumed.value.refused);
		if (!resumed.value.result.ok) throw new Error(resumed.value.result.error);
		rounds.push({ resume: resumed.ms, alone: lone.ms, resumePeak: resumed.peakMb, alonePeak: lone.peakMb });
	}
	const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	const out = {
		visits: N,
		resumeMs: med(rounds.map((r) => r.resume)),
		aloneMs: med(rounds.map((r) => r.alone)),
		resumePeakMb: med(rounds.map((r) => r.resumePeak)),
		alonePeakMb: med(rounds.map((r) => r.alonePeak)),
	};
	if (process.argv.includes("--json")) console.log(JSON.stringify(out));
	else {
		console.log(
			`resume with ${N} ended visits: ${out.resumeMs.toFixed(0)} ms, peak heap ${out.resumePeakMb.toFixed(0)} MB`,
		);
		console.log(`the remaining visit alone: ${out.aloneMs.toFixed(0)} ms, peak heap ${out.alonePeakMb.toFixed(0)} MB`);
		console.log(
			`ratio: ${(out.resumeMs / out.aloneMs).toFixed(1)}x time, ${(out.resumePeakMb / out.alonePeakMb).toFixed(1)}x peak heap`,
		);
	}
	rmSync(join(runDir, "lock.json"), { force: true });
} finally {
	rmSync(root, { recursive: true, force: true });
}
