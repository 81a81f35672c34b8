/**
 * A parallel at run time: every branch starts at once, each in its own frame (and copy, with `copies`);
 * the output keys each branch's end by name, and the block is settled by its `join`.
 */
import type { ParallelNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { body, cutter, ELSEWHERE_END, inCopy, scope, settle, withKept, withLanding } from "../../engine/blocks.ts";
import { blockCopies } from "../../engine/copies.ts";
import { childFrame, entryValue, type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import type { VisitEnd } from "../../engine/kind.ts";
import { focusOf, type World } from "../../engine/world.ts";

/** A parallel: every branch at once; the output keys each branch's end by name. */
export async function runParallel(
	world: World,
	node: ParallelNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const cut = cutter(node, signal);
	const copies = node.copies?.value ? blockCopies(world, frameCwd(frame, world)) : undefined;
	let released = false;
	try {
		const ends = await Promise.all(
			node.branches.map(async (b, i) => {
				if (focusOf(`${visit}/${b.name.value}`, world.options.focus) === "outside") return ELSEWHERE_END;
				const inner = childFrame(frame, `${visit}/${b.name.value}`, {
					id: node.id.value,
					kind: "parallel",
					memory: scope(node.id.value, `${visit}/${b.name.value}`),
				});
				if (copies) {
					const failedCopy = await inCopy(copies, i, `${node.id.value}-${b.name.value}`, inner);
					if (failedCopy) return failedCopy;
				}
				const end = await body(world, b.body, inner, cut.signal);
				if (!end.ok) cut.failed();
				return end;
			}),
		);
		const landed = copies && !world.options.signal?.aborted ? await copies.land(ends.length) : undefined;
		const output: Record<string, Value> = {};
		node.branches.forEach((b, i) => {
			output[b.name.value] = withLanding(
				ends[i].last ? entryValue(ends[i].last as VisitRecord) : { ok: ends[i].ok },
				copies,
				landed?.[i],
			);
		});
		released = true;
		return await withKept(
			settle(node, ends, visit, output),
			await copies?.release(),
			node.branches.map((b) => b.name.value),
		);
	} finally {
		cut.done();
		if (!released) await copies?.release();
	}
}
