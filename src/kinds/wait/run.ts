/**
 * Runs a wait: sleeps on the run's clock until a deadline, kept as the visit's journal fact (`deadline`)
 * before the sleep starts, so a resume after a crash mid-wait sleeps only what is left (and none when the
 * deadline passed while nothing ran). A dry run, a plan and a flow test pass an instant clock: the walk goes
 * on at once and the node still says the duration it names. On the DBOS backend the clock's sleep is
 * DBOS's durable one.
 */
import { parseDuration } from "../../language/syntax/index.ts";
import type { Frame, VisitRecord } from "../../engine/frames.ts";
import { SYSTEM_CLOCK } from "../../engine/ports/index.ts";
import { valueAt } from "../../engine/turn.ts";
import { stopKind, type World } from "../../engine/world.ts";
import type { WaitNode } from "../../language/ast.ts";

/** The journal fact a wait keeps: when it ends, in the clock's milliseconds since the epoch. */
export const DEADLINE = "deadline";

/** Sleeps the node's duration, or what is left of it since an earlier life started it. */
export async function runWait(
	world: World,
	node: WaitNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitRecord> {
	const ms = durationOf(world, node, frame);
	if (typeof ms === "string") return { ok: false, error: { kind: "condition", message: ms } };
	const clock = world.options.clock ?? SYSTEM_CLOCK;
	const earlier = world.options.replay?.fact?.(visit, DEADLINE);
	const deadline = typeof earlier === "number" ? earlier : clock.now() + ms;
	if (typeof earlier !== "number") world.recorder.fact?.(visit, DEADLINE, deadline);
	try {
		await clock.sleep(Math.max(0, deadline - clock.now()), signal);
	} catch {
		return { ok: false, error: stopKind(world, signal) };
	}
	return { ok: true, output: { ms } };
}

/** The wait's duration in ms, or why a `wait-from` value is none (a number is seconds; over `max`, `max`). */
function durationOf(world: World, node: WaitNode, frame: Frame): number | string {
	if (node.ms) return node.ms.value;
	if (!node.from) return "the wait has no duration";
	const v = valueAt(node.from, frame, world);
	if (!v.ok) return `\`wait-from\` cannot read \`${node.from.text}\`: ${v.reason}`;
	const ms =
		typeof v.value === "number" && Number.isFinite(v.value) && v.value >= 0
			? v.value * 1000
			: typeof v.value === "string"
				? parseDuration(v.value.trim())
				: undefined;
	if (ms === undefined)
		return `\`wait-from\` reads a duration ("90s") or a number of seconds; \`${node.from.text}\` is ${JSON.stringify(v.value)}`;
	return Math.min(ms, node.max?.value ?? ms);
}
