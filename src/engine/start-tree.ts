/**
 * Effects are honest: the trees a run starts from, recorded before anything writes. A flow that commits
 * records the tree the run started from, so `commit` takes only what the run changed (a path untracked or
 * modified before the run began stays the person's); a visit that may write (an agent with a writing tool)
 * records the tree it started from, so a resume that reruns it after a cut in doubt first puts the tree
 * back to that (src/runs/in-doubt.ts) and the visit applies its writes once. Both are journaled
 * (`RunRecorder.tree`) and read back on resume (`Replay.tree`): the run's start is its first life's.
 *
 *   await recordRunStart(world);                   // world.startTree = { tree, head }, journaled under ""
 *   await recordVisitStart(world, cwd, "fix#2", ["read", "edit"]);   // journaled under "fix#2"
 */
import { mayWriteWith } from "../agents/index.ts";
import type { World } from "./world.ts";

/** Records the tree the run starts from when its flow commits; a resumed run keeps its first life's. */
export async function recordRunStart(world: World): Promise<void> {
	const git = world.options.git;
	if (!world.flow.commits || !git?.snapshot) return;
	const earlier = world.options.replay?.tree?.("");
	if (earlier) {
		world.startTree = earlier;
		return;
	}
	// A focused part of a distributed run has no start of its own to record.
	if (world.options.focus !== undefined) return;
	const taken = await git.snapshot(world.options.cwd);
	if (!taken.ok) return;
	world.startTree = taken.snapshot;
	world.recorder.tree?.("", taken.snapshot);
}

/**
 * Records the tree a visit that may write starts from, before its first turn; undefined, with nothing to
 * wait for, when there is none to record (no git port or tree journal, or no tool that writes).
 */
export function recordVisitStart(
	world: World,
	cwd: string,
	visit: string,
	tools: readonly string[],
): Promise<void> | undefined {
	const git = world.options.git;
	if (!git?.snapshot || !world.recorder.tree || !mayWriteWith(tools)) return undefined;
	return git.snapshot(cwd).then((taken) => {
		if (taken.ok) world.recorder.tree?.(visit, taken.snapshot);
	});
}
