/**
 * Issue 19: the live view shows what runs. Behind a gate that lets one turn run at a time (as `/step`
 * does), a map's other branches are drawn waiting, not running, and each one's clock starts when its
 * turn does.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { foldLive, type LiveState, startLive } from "../../../src/extension/live/fold.ts";
import { showLive, treeOf } from "../../../src/extension/live/render.ts";
import type { FlowEvent } from "../../../src/runtime/events.ts";
import { oneAtATime, scriptedHost } from "../../helpers/host.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf, runInline } from "../../helpers/run.ts";
import { checkFlowText } from "../../../src/load/index.ts";
import { loadRoster } from "../../../src/agents/index.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("a turn that waits for its turn", () => {
	it("is drawn waiting, with no clock, until it starts", async () => {
		const text = flowOf(
			"m",
			"  - id: look\n    map: [a, b, c]\n    concurrency: 3\n    do:\n      - id: scout\n        agent: scout\n",
			{ scout: "Look." },
		);
		const script = 'turns:\n  "look[1]/scout":\n    - delay: 1500\n      say: first\n  scout:\n    - say: later\n';
		const host = await scriptedHost(project, script);
		const flow = checkFlowText(text, "m.md", loadRoster(project.cwd, { project: true }, project.env)).value;
		if (!flow) throw new Error("does not check");
		const state: LiveState = startLive("m", Date.now());
		let frame: string[] | undefined;
		const startedAt = new Map<string, number>();
		const waitedAt = new Map<string, number>();
		const onEvent = (e: FlowEvent) => {
			const now = Date.now();
			foldLive(state, e, now);
			if (e.type === "turn_wait") waitedAt.set(e.path, now);
			if (e.type === "turn_start") startedAt.set(e.path, now);
			// The moment to look: the first scout runs, and both others have asked for their turn.
			if (
				!frame &&
				startedAt.has("look[1]/scout") &&
				waitedAt.has("look[2]/scout") &&
				waitedAt.has("look[3]/scout") &&
				!startedAt.has("look[2]/scout")
			) {
				frame = showLive(state, treeOf(flow), now);
			}
		};
		const ran = await runInline(project, "m", text, script, "x", { spawn: oneAtATime(host.spawn), onEvent });
		expect(ran.result.ok).toBe(true);
		expect(frame).toBeDefined();
		const turns = (frame ?? [])
			.filter((l) => /look\[\d\]\/scout/.test(l))
			.map((l) => l.trim().replace(/ · \d+s$/, " · <clock>"));
		expect(turns).toEqual([
			"▸ look[1]/scout · scout · scripted/scripted · <clock>",
			"◌ look[2]/scout · scout · waiting",
			"◌ look[3]/scout · scout · waiting",
		]);
		// Each waiting turn's clock starts when the turn does, after the one before it ended.
		for (const i of [2, 3])
			expect(startedAt.get(`look[${i}]/scout`) ?? 0).toBeGreaterThanOrEqual(startedAt.get("look[1]/scout") ?? Infinity);
	}, 30_000);
});
