/**
 * Per-step input tokens of a 20-step chain, side by side in one run: each step a fresh context handed
 * the previous step's handoff summary (pi-flows' chain), versus one session carrying the whole history
 * (every step in the same conversation). The first must stay flat while the second grows.
 *
 *   node bench/context.ts [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoster } from "../src/agents/index.ts";
import { chainRunOptions } from "../src/chain/index.ts";
import { catalogueOptions, checkFlowText, resolveModels, runFlow } from "../src/flow/index.ts";
import { openHost, readScript } from "../src/pi/index.ts";

const STEPS = 20;
const ANSWER = `Step report. ${"The module was read, the change was made, and the tests were run again. ".repeat(25)}`;

async function measure(flowText: string): Promise<number[]> {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-context-"));
	try {
		const env = { ...process.env, PI_CODING_AGENT_DIR: join(root, "agent") };
		const sources = { project: true };
		const checked = checkFlowText(flowText, join(root, "b.md"), loadRoster(root, sources, env), catalogueOptions(root, sources, env));
		if (!checked.value) throw new Error(JSON.stringify(checked.faults.slice(0, 3)));
		const script = readScript(`turns:\n  "*":\n    - say: ${JSON.stringify(ANSWER)}\n`, "bench").value;
		if (!script) throw new Error("bad script");
		const host = await openHost({ cwd: root, agentDir: env.PI_CODING_AGENT_DIR, script });
		const models = resolveModels(checked.value, host.resolveModel, "scripted");
		if (!models.ok) throw new Error(models.errors.join());
		const chain = chainRunOptions(checked.value, root);
		const result = await runFlow(checked.value, "Improve the parser, one step at a time.", { spawn: host.spawn, models: models.models, cwd: root, plugins: chain.plugins });
		if (!result.ok) throw new Error(result.error);
		return result.visits.filter((v) => v.kind === "agent").map((v) => v.usage.input + v.usage.cacheRead + v.usage.cacheWrite);
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
const rows = withHandoffs.map((h, i) => ({ step: i + 1, handoffs: h, history: wholeHistory[i] }));
if (process.argv.includes("--json")) {
	console.log(JSON.stringify({ rows, handoffsGrowth: withHandoffs[STEPS - 1] / withHandoffs[1], historyGrowth: wholeHistory[STEPS - 1] / wholeHistory[1] }));
} else {
	console.log("step  input tokens with handoff documents  input tokens with the whole history");
	for (const r of rows) console.log(`${String(r.step).padStart(4)}  ${String(r.handoffs).padStart(36)}  ${String(r.history).padStart(35)}`);
	console.log(`step 20 / step 2: handoffs ${(withHandoffs[STEPS - 1] / withHandoffs[1]).toFixed(2)}x, whole history ${(wholeHistory[STEPS - 1] / wholeHistory[1]).toFixed(2)}x`);
}
