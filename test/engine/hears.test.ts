// A run's turn events are made only for someone who hears them (World.hears, src/engine/run.ts): with a
// listener or a plugin's they arrive as before; without either the run's result is the same.
import { afterEach, describe, expect, it } from "vitest";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

const projects: TempProject[] = [];
afterEach(() => {
	for (const p of projects.splice(0)) p.cleanup();
});

const FLOW = flowOf(
	"heard",
	"  - id: each\n    map: [a, b]\n    do:\n      - id: act\n        agent: scout\n        reads: [item]\n",
	{ act: "Act on the item." },
);
const SCRIPT = 'turns:\n  "*":\n    - say: done\n';

async function run(options: Parameters<typeof runInline>[5]) {
	const project = tempProject();
	projects.push(project);
	const ran = await runInline(project, "heard", FLOW, SCRIPT, "go", options);
	return { ...ran, visits: ran.result.visits.map(({ usage: _usage, ...v }) => v) };
}

describe("turn events", () => {
	it("reach a listener and a plugin, and a run without either ends with the same result", async () => {
		const listened = await run({});
		const types = listened.events.map((e) => e.type);
		for (const t of ["node_start", "turn_wait", "turn_start", "message", "turn_end", "node_end"] as const)
			expect(types.filter((x) => x === t).length, t).toBeGreaterThanOrEqual(2);
		const heard: FlowEvent[] = [];
		await run({ onEvent: undefined, plugins: [{ onEvent: (e) => void heard.push(e) }] });
		expect(heard.map((e) => e.type)).toEqual(types);
		const alone = await run({ onEvent: undefined });
		expect(alone.result.ok).toBe(true);
		expect(alone.visits).toEqual(listened.visits);
		expect(alone.result.output).toEqual(listened.result.output);
	});
});
