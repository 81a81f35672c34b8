/**
 * Memory of a long run: one flow of 10,000 agent turns (a map at concurrency 8) on the scripted model,
 * with RSS and heap sampled after a full GC at 1,000, 5,000 and 10,000 turns. Flat means no per-turn leak:
 * every session disposed, every listener removed.
 *
 *   node --expose-gc bench/memory.ts [--turns 10000] [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoster } from "../src/agents/index.ts";
import { resolveModels } from "../src/engine/index.ts";
import { runFlow } from "../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../src/load/index.ts";
import { openHost, readScript } from "../src/pi/index.ts";

const arg = (name: string, fallback: number) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TURNS = arg("turns", 10_000);
const MARKS = [1_000, 5_000, 10_000].filter((m) => m <= TURNS);
const gc = (globalThis as { gc?: () => void }).gc;

const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-memory-"));
try {
	const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
	const items = Array.from({ length: TURNS }, (_, i) => `i${i}`);
	const text = `---\nname: m\ndescription: bench\ninput: string\nnodes:\n  - id: work\n    map: [${items.join(", ")}]\n    concurrency: 8\n    do:\n      - id: act\n        agent: scout\n        reads: [item]\n---\n\n## act\n\nDo the item under \`item\`.\n`;
	const checked = checkFlowText(text, join(root, "m.md"), loadRoster(root, {}, env), catalogueOptions(root, {}, env));
	if (!checked.value) throw new Error(JSON.stringify(checked.faults.slice(0, 2)));
	const script = readScript('turns:\n  "*":\n    - say: done\n', "bench").value;
	if (!script) throw new Error("bad script");
	const host = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
	const models = resolveModels(checked.value, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join());
	gc?.();
	const base = process.memoryUsage();
	const samples: { turns: number; rssMb: number; heapMb: number; open: number }[] = [];
	let turns = 0;
	await runFlow(checked.value, "go", {
		spawn: host.spawn,
		models: models.models,
		cwd: root,
		onEvent: (e) => {
			if (e.type !== "turn_end") return;
			turns++;
			if (MARKS.includes(turns)) {
				gc?.();
				const m = process.memoryUsage();
				samples.push({ turns, rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20, open: host.open() });
			}
		},
	});
	const growth = samples.length > 1 ? samples[samples.length - 1].heapMb / samples[0].heapMb : 1;
	if (process.argv.includes("--json"))
		console.log(JSON.stringify({ baseRssMb: base.rss / 2 ** 20, samples, heapGrowth: growth, gc: Boolean(gc) }));
	else {
		console.log(
			`base RSS ${(base.rss / 2 ** 20).toFixed(0)} MB${gc ? "" : " (run with --expose-gc for stable figures)"}`,
		);
		for (const s of samples)
			console.log(
				`after ${String(s.turns).padStart(6)} turns: RSS ${s.rssMb.toFixed(0)} MB, heap ${s.heapMb.toFixed(0)} MB, ${s.open} sessions open`,
			);
		console.log(`heap at the last mark / the first: ${growth.toFixed(2)}x`);
	}
} finally {
	rmSync(root, { recursive: true, force: true });
}
