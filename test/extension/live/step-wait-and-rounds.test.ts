/**
 * Issue 33, point 7: the live view as a person saw it, replayed from a run's events. Under `/step`, a node
 * whose turn ended and waits for the person is drawn ended, not running, its clock stopped when the wait
 * began and the wait its end reports left out of its time once it ends; inside a loop, round 2 does not show round 1's ✓
 * for a node it has not reached yet, and the loop says which round it is in.
 */
import { describe, expect, it } from "vitest";
import type { FlowEvent } from "../../../src/runtime/index.ts";
import { emptyUsage } from "../../../src/runtime/index.ts";
import { foldLive, startLive } from "../../../src/extension/live/fold.ts";
import { showLive, type TreeRow } from "../../../src/extension/live/render.ts";

const start = (path: string, node: string, kind = "agent"): FlowEvent => ({
	type: "node_start",
	path,
	node,
	kind,
	agent: "scout",
});
const end = (path: string, node: string, kind = "agent"): FlowEvent => ({
	type: "node_end",
	path,
	node,
	kind,
	ok: true,
	usage: emptyUsage(),
});

describe("the live view", () => {
	it("draws a /step node that waits for the person as ended, without the wait in its time", () => {
		const s = startLive("look", 0);
		foldLive(s, start("look", "look"), 0);
		foldLive(s, { type: "turn_start", path: "look", agent: "scout", model: "m", subagent: "scout#1" } as FlowEvent, 0);
		const tree: TreeRow[] = [{ depth: 0, address: "look", id: "look", what: "scout" }];
		// Ended its turn at 2s, the person still choosing at 30s.
		const waiting = showLive(s, tree, 30_000, { waiting: { path: "look", since: 2_000 } }).join("\n");
		expect(waiting).toContain("✓ look · scout · 2s");
		expect(waiting).not.toMatch(/▸ look/);
		// The person chose at 40s; the node's end lands then, saying it was held 38s, and its time is still its 2s.
		foldLive(s, { ...end("look", "look"), held: 38_000 } as FlowEvent, 40_000);
		const after = showLive(s, tree, 41_000).join("\n");
		expect(after).toContain("✓ look · scout · 2s");
	});

	it("shows a loop's round, and round 2 does not carry round 1's ✓", () => {
		const s = startLive("fix", 0);
		const tree: TreeRow[] = [
			{ depth: 0, address: "fix", id: "fix", what: "loop" },
			{ depth: 1, address: "fix/code", id: "code", what: "coder" },
			{ depth: 1, address: "fix/review", id: "review", what: "reviewer" },
		];
		foldLive(s, start("fix", "fix", "loop"), 0);
		for (const [path, node] of [
			["fix#1/code", "code"],
			["fix#1/review", "review"],
		]) {
			foldLive(s, start(path, node), 1_000);
			foldLive(s, end(path, node), 2_000);
		}
		foldLive(s, start("fix#2/code", "code"), 3_000);
		const frame = showLive(s, tree, 4_000).join("\n");
		expect(frame).toMatch(/● fix · loop · round 2/);
		expect(frame).toMatch(/● code · coder/);
		expect(frame).toMatch(/○ review · reviewer/);
	});
});
