/**
 * Runs a check node: the project's script through the check port; passed or red, it is a value (a script
 * that cannot run, times out or is stopped is a failure).
 */
import type { CheckNode } from "../../language/ast.ts";
import { DEFAULT_CHECK_TIMEOUT_MS } from "../../language/check/index.ts";
import { type Frame, frameCwd, type VisitRecord } from "../../engine/frames.ts";
import { stopKind, type World } from "../../engine/world.ts";
import { checkFacts } from "../../engine/identify.ts";
import { reuseOrRun } from "../../engine/reuse.ts";
import type { EndedVisit } from "../../engine/record.ts";
import { CHECK_SCRIPT } from "./facts.ts";

/** A check's earlier end as a record: passed or red, with its report. */
function replayed(ended: EndedVisit): VisitRecord {
	return { ok: ended.ok, ...(ended.output !== undefined ? { output: ended.output } : {}) };
}

/** Runs a check script; passed or red, it is a value. */
export async function runCheck(
	world: World,
	node: CheckNode,
	visit: string,
	signal: AbortSignal,
	frame?: Frame,
): Promise<VisitRecord> {
	const port = world.options.check;
	const script = node.script?.value ?? "";
	if (!port)
		return { ok: false, error: { kind: "unavailable", message: "no check port: this run cannot run scripts" } };
	const cwd = frame ? frameCwd(frame, world) : world.options.cwd;
	const timeoutMs = node.timeout?.value ?? DEFAULT_CHECK_TIMEOUT_MS;
	const content = world.options.scripts?.get(script);
	if (frame) {
		const facts = await checkFacts(world, frame, node, script);
		const reused = await reuseOrRun(world, node, visit, facts, replayed);
		if (reused) return reused.record;
	}
	// The script a visit ran is kept by name, so a recording keeps each check's result with the script behind it.
	world.recorder.fact?.(visit, CHECK_SCRIPT, script);
	const out = await port.run({
		script,
		visit,
		root: cwd,
		cwd,
		timeoutMs,
		signal,
		...(content !== undefined ? { content } : {}),
	});
	if (out.ok) return { ok: true, output: { passed: out.passed, report: out.report } };
	if (out.kind === "stopped") return { ok: false, error: stopKind(world, signal) };
	return { ok: false, error: { kind: out.kind, message: out.message } };
}
