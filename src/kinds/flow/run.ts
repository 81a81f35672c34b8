/**
 * Runs a flow node (a call): the callee the checker checked, run whole in a child world of the same run,
 * its failure `child` naming the inner visit.
 */
import type { CallNode } from "../../language/ast.ts";
import { childWorld } from "../../engine/child-world.ts";
import type { VisitEnd } from "../run.ts";
import { valueAt } from "../../engine/turn.ts";
import { type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import { innermost, isStop, runSequence } from "../../engine/walk.ts";
import type { World } from "../../engine/world.ts";

/** Runs a called flow whole; its failure is `child`, naming the inner visit. */
export async function runCall(
	world: World,
	node: CallNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const callee = world.flow.callees.get(node.id.value);
	if (!callee || !node.input)
		return { record: { ok: false, error: { kind: "unavailable", message: "the callee was not checked" } } };
	const input = valueAt(node.input, frame, world);
	if (!input.ok)
		return {
			record: { ok: false, error: { kind: "condition", message: `\`input\` cannot be read: ${input.reason}` } },
		};
	const inner = childWorld(world, callee, input.value, `${world.prefix}${node.id.value}/`);
	const root: Frame = {
		records: new Map(),
		prefix: visit,
		cwd: frameCwd(frame, world),
		block: {
			id: "flow",
			kind: "flow",
			memory: { id: "flow", instance: `${visit}/flow`, closers: [], values: new Map() },
		},
	};
	try {
		const end = await runSequence(inner, callee.nodes, root, signal);
		if (!end.ok) {
			const f = end.failure;
			// A stop (a person, a fail-fast cut, a spent budget) keeps its kind through the call.
			const stop = !!f && isStop(f);
			return {
				record: stop
					? (f as VisitRecord)
					: { ok: false, error: { kind: "child", message: innermost(end.failedAt ?? visit, f?.error) } },
				...(end.failedAt ? { failedAt: end.failedAt } : {}),
			};
		}
		return { record: { ok: true, ...(end.last?.output !== undefined ? { output: end.last.output } : {}) } };
	} finally {
		for (const close of root.block?.memory.closers.splice(0) ?? []) await close().catch(() => {});
	}
}
