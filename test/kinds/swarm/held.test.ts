// A swarm's members' turns held for a person (each `/step` pause after a member's turn) are the person's
// time: the swarm's visit journals them as `held` and leaves them out of its own time, as an agent's visit does.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FlowEvent } from "../../../src/runtime/events.ts";
import type { Spawn } from "../../../src/runtime/index.ts";
import { oneAtATime } from "../../helpers/host.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf, runInline } from "../../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const HOLD_MS = 60;

/** As `/step` does: turns one at a time, and after each a wait for the person, handed back as `heldMs`. */
const holding = (spawn: Spawn): Spawn =>
	oneAtATime(spawn, async (r) => {
		const from = performance.now();
		await new Promise((done) => setTimeout(done, HOLD_MS));
		return { ...r, heldMs: performance.now() - from };
	});

describe("a swarm under /step", () => {
	it("leaves its members' held time out of its own, and journals it as held", async () => {
		const flow = flowOf("sw", "  - id: s\n    swarm: [{ agent: scout, count: 2 }]\n    rounds: 2\n", { s: "Survey." });
		const started = performance.now();
		const ran = await runInline(project, "sw", flow, 'turns:\n  "*":\n    - say: ok\n', "go", {}, holding);
		const wall = performance.now() - started;
		expect(ran.result.ok, ran.result.error).toBe(true);
		const end = ran.events.find((e): e is Extract<FlowEvent, { type: "node_end" }> => e.type === "node_end");
		// Two members, two rounds: four member turns, each held about HOLD_MS (a timer may fire a little early).
		const held = end?.held ?? 0;
		expect(held).toBeGreaterThanOrEqual(4 * (HOLD_MS - 5));
		expect(end?.usage.ms).toBeLessThanOrEqual(wall - held);
	});
});
