/**
 * Per-step input tokens of a 20-step chain, side by side in one run: each step a fresh context handed
 * the previous step's handoff summary (pi-flows' chain), versus one session carrying the whole history
 * (every step in the same conversation). The first must stay flat while the second grows.
 *
 * Then the driver (`pi-flows drive`): per-turn input tokens over a 10-turn drive whose turns read past
 * the watermark (so the land-the-plane directive is steered in) and end alternately on a checkpoint and
 * a partial finish. Each turn is seeded with the task and the latest document only, so turn 10 costs
 * what turn 2 did.
 *
 *   node bench/context.ts [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { loadRoster } from "../src/agents/index.ts";
import { drive } from "../src/drive/index.ts";
import { chainRunOptions } from "../src/launch/index.ts";
import { resolveModels } from "../src/engine/index.ts";
import { runFlow } from "../src/kinds/run.ts";
import { catalogueOptions, checkFlowText } from "../src/load/index.ts";
import { openHost, readScript } from "../src/pi/index.ts";

const STEPS = 20;
const ANSWER = `Step report. ${"The module was read, the change was made, and the tests were run again. ".repeat(25)}`;

async function measure(flowText: string): Promise<number[]> {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-context-"));
	try {
		const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
		const sources = { project: true };
		const checked = checkFlowText(
			flowText,
			join(root, "b.md"),
			loadRoster(root, sources, env),
			catalogueOptions(root, sources, env),
		);
		if (!checked.value) throw new Error(JSON.stringify(checked.faults.slice(0, 3)));
		const script = readScript(`turns:\n  "*":\n    - say: ${JSON.stringify(ANSWER)}\n`, "bench").value;
		if (!script) throw new Error("bad script");
		const host = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
		const models = resolveModels(checked.value, host.resolveModel, "scripted");
		if (!models.ok) throw new Error(models.errors.join());
		const chain = chainRunOptions(checked.value, root);
		const result = await runFlow(checked.value, "Improve the parser, one step at a time.", {
			spawn: host.spawn,
			models: models.models,
			cwd: root,
			plugins: chain.plugins,
		});
		if (!result.ok) throw new Error(result.error);
		return result.visits
			.filter((v) => v.kind === "agent")
			.map((v) => v.usage.input + v.usage.cacheRead + v.usage.cacheWrite);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

const TURNS = 10;

/** Input tokens of each turn of a 10-turn drive with the watermark, and whether the directive reached it. */
async function measureDrive(): Promise<{ tokens: number[]; steered: boolean[] }> {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-drive-"));
	try {
		const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
		writeFileSync(
			join(root, "module.txt"),
			`${"The parser reads one token at a time and builds the tree. ".repeat(400)}\n`,
		);
		const read = "    - call: read\n      args: { path: module.txt }\n";
		const end = (n: number) =>
			n === TURNS
				? "    - call: finish\n      args: { status: done, summary: The parser is finished. }\n"
				: n % 2
					? `    - call: checkpoint\n      args: { status: in-progress, summary: Part ${n} of the parser is written and tested., next_task: Write the next part of the parser. }\n`
					: `    - call: finish\n      args: { status: partial, summary: Part ${n} of the parser is written and tested., next_task: Write the next part of the parser. }\n`;
		const turns = Array.from({ length: TURNS }, (_, i) => `  turn${i + 1}:\n${read}${read}${end(i + 1)}`).join("");
		const script = readScript(`contextWindow: 16000\nturns:\n${turns}`, "bench-drive").value;
		if (!script) throw new Error("bad drive script");
		const host = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
		const worker = loadRoster(root, {}, env).get("worker");
		if (worker?.kind !== "agent") throw new Error("no worker agent");
		const steered: boolean[] = [];
		const out = await drive("Improve the parser, one part per turn.", {
			cwd: root,
			agent: worker,
			model: "scripted",
			maxTurns: TURNS,
			logDir: join(root, "logs"),
			spawn: async (request) => {
				const sub = await host.spawn(request);
				return {
					...sub,
					id: sub.id,
					agent: sub.agent,
					model: sub.model,
					close: () => sub.close(),
					ask: async (task, options) => {
						const r = await sub.ask(task, options);
						steered.push(JSON.stringify(r.messages).includes("Time to hand over"));
						return r;
					},
				};
			},
		});
		if (out.end !== "complete" || out.turns.length !== TURNS)
			throw new Error(`the bench drive ended ${out.end} after ${out.turns.length} turns`);
		return { tokens: out.turns.map((t) => t.usage.input + t.usage.cacheRead + t.usage.cacheWrite), steered };
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

const header = "---\nname: b\ndescription: bench\ninput: string\n";
const handoffs = `${header}chain: '${Array.from({ length: STEPS }, () => "@worker").join(" -> ")}'\n---\n`;
const ids = Array.from({ length: STEPS }, (_, i) => `s${i + 1}`);
const history = `${header}nodes:\n${ids.map((id) => `  - id: ${id}\n    agent: worker\n    memory: flow\n    reads: [input]\n`).join("")}---\n\n${ids.map((id) => `## ${id}\n\nDo your step of the work under \`input\`.\n`).join("\n")}`;

const withHandoffs = await measure(handoffs);
const wholeHistory = await measure(history);
const driven = await measureDrive();
const rows = withHandoffs.map((h, i) => ({ step: i + 1, handoffs: h, history: wholeHistory[i] }));
const driveGrowth = driven.tokens[TURNS - 1] / driven.tokens[1];
if (process.argv.includes("--json")) {
	console.log(
		JSON.stringify({
			rows,
			handoffsGrowth: withHandoffs[STEPS - 1] / withHandoffs[1],
			historyGrowth: wholeHistory[STEPS - 1] / wholeHistory[1],
			drive: driven,
			driveGrowth,
		}),
	);
} else {
	console.log("step  input tokens with handoff documents  input tokens with the whole history");
	for (const r of rows)
		console.log(`${String(r.step).padStart(4)}  ${String(r.handoffs).padStart(36)}  ${String(r.history).padStart(35)}`);
	console.log(
		`step 20 / step 2: handoffs ${(withHandoffs[STEPS - 1] / withHandoffs[1]).toFixed(2)}x, whole history ${(wholeHistory[STEPS - 1] / wholeHistory[1]).toFixed(2)}x`,
	);
	console.log("");
	console.log("drive turn  input tokens  watermark directive steered in");
	for (const [i, t] of driven.tokens.entries())
		console.log(`${String(i + 1).padStart(10)}  ${String(t).padStart(12)}  ${driven.steered[i] ? "yes" : "no"}`);
	console.log(`drive turn 10 / turn 2: ${driveGrowth.toFixed(2)}x (target <= 1.2)`);
}
