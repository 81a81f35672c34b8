/**
 * `/run resume [run] [--in-doubt rerun|stop] [--take-lock] [--runs-dir DIR] [--timeout D]`: continues a run from its journal, the newest of this folder that did not end well
 * when none is named, with the same live view and answer as `/run`. The snapshot runs, not the disk;
 * a turn cut after it may have written to the tree is asked about (the safe answer, stop, first) unless
 * `--in-doubt` says, and on `rerun` its files are put back to the tree it started from before it runs again.
 */
import { reuseFromFolder } from "../reuse/index.ts";
import { resolve } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { createBashCheck, createGitPort, NOBODY } from "../engine/index.ts";
import { readScript } from "../pi/index.ts";
import {
	describeInDoubt,
	inDoubtChanges,
	journalState,
	newestResumable,
	readJournal,
	resumeRun,
	runsHome,
	sealedRun,
	snapshotModels,
} from "../runs/index.ts";
import { agentDir } from "../agents/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { dialogAsk } from "./ask-dialogs.ts";
import { hostFor } from "./host.ts";
import { shown } from "./launch/index.ts";
import { openLiveView } from "./live/index.ts";
import { say } from "./messages.ts";
import type { ResumeLine } from "./resume-args.ts";
import { flushTelemetry, startTelemetry } from "../telemetry/export/index.ts";

/** Resumes a run; the result is posted by the caller's `post`. */
export async function resumeInPi(
	named: string | undefined,
	ctx: ExtensionCommandContext,
	post: (content: string, ok: boolean, runDir: string) => void,
	options: Omit<ResumeLine, "run"> = {},
): Promise<void> {
	const home = runsHome(ctx.cwd, options.runsDir);
	const newest = named ? undefined : newestResumable(home);
	const runDir = named ? resolve(ctx.cwd, named) : newest?.runDir;
	if (!runDir) {
		const skipped = newest?.skipped ? ` (${newest.skipped} run folder(s) not made here by you were skipped)` : "";
		return say(ctx, `/run resume: no resumable run under ${shown(ctx.cwd, home)}${skipped}`, "warning");
	}
	// Nothing of a run folder is used (its script, its models) before its seal checks.
	const sealed = sealedRun(runDir);
	if (!sealed.ok) return say(ctx, `/run resume: ${sealed.error}`, "error");
	const snap = { value: sealed.snapshot };
	const journal = readJournal(`${runDir}/journal.jsonl`);
	const state = journal.ok ? journalState(journal.entries) : undefined;
	let inDoubt: "rerun" | "stop" = options.inDoubt ?? "stop";
	if (state?.inDoubt.length && ctx.hasUI && !options.inDoubt && journal.ok) {
		const which = describeInDoubt(await inDoubtChanges(ctx.cwd, journal.entries, state.inDoubt));
		// The safe answer first, where the cursor starts: a stray Enter changes nothing.
		const keep = "No: stop, and leave the tree as it is";
		const picked = await ctx.ui.select(
			`${which} was cut after calling a tool that writes; its edits may be in the tree. Put its files back and run it again from its start?`,
			[keep, "Yes: put its files back to where it started, and run it again"],
		);
		inDoubt = picked === undefined || picked === keep ? "stop" : "rerun";
	}
	const scriptSetting = snap.value.settings.script;
	const script = scriptSetting ? readScript(scriptSetting.text, scriptSetting.file).value : undefined;
	const host = await hostFor(ctx, script);
	const stop = new AbortController();
	const onPiAbort = () => stop.abort();
	ctx.signal?.addEventListener("abort", onPiAbort, { once: true });
	const ask = ctx.hasUI ? dialogAsk(ctx.ui) : NOBODY;
	let view: ReturnType<typeof openLiveView> | undefined;
	const models = snapshotModels(host, snap.value);
	// Traces go out when the environment asks (OTEL_EXPORTER_OTLP_*), the SDK loaded only then.
	await startTelemetry(process.env, (line) => say(ctx, `pi-flows: ${line}`, "warning"));
	try {
		const outcome = await resumeRun({
			runDir,
			cwd: ctx.cwd,
			handoff: (
				await resolveHandoffPolicy({
					cwd: ctx.cwd,
					agentDir: agentDir(),
					env: process.env,
					projectTrusted: ctx.isProjectTrusted(),
				})
			).policy,
			spawn: host.spawn,
			toolSchemas: host.toolSchemas,
			reuseFrom: (from) => {
				const opened = reuseFromFolder(from, agentDir());
				return opened.ok ? opened.source : { error: opened.error };
			},
			models: (flow, snapshot) => {
				view ??= openLiveView(ctx, flow, { onEscape: () => stop.abort() });
				return models(flow, snapshot);
			},
			somebodyThere: ask.somebodyThere,
			ask,
			git: createGitPort(),
			check: createBashCheck(),
			signal: stop.signal,
			onEvent: (e) => view?.sink(e),
			inDoubt,
			...(options.takeLock ? { takeLock: true } : {}),
			...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
			onNote: (line) => say(ctx, `/run resume: ${line}`, "info"),
		});
		if ("refused" in outcome) return say(ctx, `/run resume: ${outcome.refused}`, "error");
		const lines = [`◆ ${snap.value.flow.name} (resumed, life ${outcome.resumed?.life ?? "?"})`];
		lines.push(...(outcome.resumed?.notes ?? []));
		if (outcome.resumed?.changed) lines.push(outcome.resumed.changed);
		const { result } = outcome;
		lines.push(
			result.ok
				? typeof result.output === "string"
					? result.output
					: JSON.stringify(result.output, null, 2)
				: `failed at ${result.failedAt}: ${result.error}`,
		);
		post(lines.join("\n\n"), result.ok, shown(ctx.cwd, runDir));
	} finally {
		ctx.signal?.removeEventListener("abort", onPiAbort);
		view?.close();
		// pi lives on after the run: what it traced is exported now, not at pi's exit.
		await flushTelemetry();
	}
}
