/**
 * Runs a commit node: commits the tree on the run's own branch through the git port, with the message an
 * earlier node wrote.
 */
import type { CommitNode } from "../../language/ast.ts";
import { valueAt } from "../../engine/turn.ts";
import { type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import type { World } from "../../engine/world.ts";

/** Commits the tree on the run's own branch; a clean tree is `committed: false`. */
export async function runCommit(world: World, node: CommitNode, frame: Frame): Promise<VisitRecord> {
	const git = world.options.git;
	if (!git) return { ok: false, error: { kind: "unavailable", message: "no git port: this run cannot commit" } };
	const v = node.message ? valueAt(node.message, frame, world) : { ok: false as const, reason: "no message" };
	const message = v.ok && typeof v.value === "string" ? v.value : "";
	if (!message.trim())
		return {
			ok: false,
			error: {
				kind: "empty-message",
				message: v.ok ? "the commit message is empty" : `the commit message cannot be read: ${v.reason}`,
			},
		};
	const run = runWorld(world);
	const out = await git.commit(frameCwd(frame, world), {
		message,
		slug: world.slug,
		...(run.branch ? { branch: run.branch } : {}),
		...(run.startTree ? { since: run.startTree } : {}),
	});
	// A branch opened by a commit that then failed (a hook) is still the run's: the next commit goes there.
	if (out.branch) run.branch = out.branch;
	if (!out.ok) return { ok: false, error: { kind: out.kind, message: out.message } };
	return {
		ok: true,
		output: {
			committed: out.committed,
			...(out.sha ? { sha: out.sha } : {}),
			branch: out.branch,
			...(out.left_out ? { left_out: out.left_out } : {}),
		},
	};
}

/**
 * The world the run was started with. Each visit sees its own view of it (`Object.create`, for its own
 * usage), so run-wide state written on a view would die with the visit: the run's branch is kept on the
 * object that owns `options`, which every view and every callee's world reads through.
 */
function runWorld(world: World): World {
	for (let w: World | null = world; w; w = Object.getPrototypeOf(w) as World | null)
		if (Object.hasOwn(w, "options")) return w;
	return world;
}
