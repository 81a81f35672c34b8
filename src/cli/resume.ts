/**
 * `pi-flows resume [run]`: continues a run from its journal, the newest resumable run of this folder when
 * none is named. The snapshot runs, not the disk (a flow edited since is reported in one line); a turn
 * cut after it may have written to the tree is in doubt: asked at a terminal, else `--in-doubt`.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import {
	readJournal,
	journalState,
	newestResumable,
	resumeRun,
	runsHome,
	sealedRun,
	snapshotModels,
	type InDoubt,
} from "../runs/index.ts";
import { openHost, readScript } from "../pi/index.ts";
import { type Args, flag } from "./args.ts";
import { terminalAsk } from "./ask.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { budgetFlags, report, terminalWorld, transportFlags } from "./launch.ts";
import { durationFlagError, parseDuration } from "../language/syntax/index.ts";
import { displayPath } from "./output.ts";
import { backendOf } from "./backend.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";

/** Runs `resume`. */
export async function resumeCommand(args: Args, io: Io): Promise<number> {
	const backend = backendOf(args, io);
	if (!backend.ok) {
		io.stderr(`pi-flows: ${backend.error}`);
		return 2;
	}
	if (backend.skipped) io.stderr(`pi-flows: ${backend.skipped}`);
	if (backend.value === "dbos" || flag(args, "database") !== undefined)
		return (await import("./distributed.ts")).resumeDistributed(args, io);
	const home = runsHome(io.cwd, flag(args, "runs-dir"));
	const named = args.positionals[0];
	const newest = named ? undefined : newestResumable(home, io.agentDir);
	const runDir = named ? resolve(io.cwd, named) : newest?.runDir;
	if (!runDir) {
		const skipped = newest?.skipped ? ` (${newest.skipped} run folder(s) not made here by you were skipped)` : "";
		io.stderr(`pi-flows: no resumable run under ${displayPath(home, io.cwd)}${skipped}`);
		return 2;
	}
	// Nothing of a run folder is read for use (its script, its models) before its seal checks.
	const sealed = sealedRun(runDir, io.agentDir);
	const snap = sealed.ok ? { ok: true as const, value: sealed.snapshot } : { ok: false as const, error: sealed.error };
	if (!snap.ok) {
		io.stderr(`pi-flows: ${snap.error}`);
		return 2;
	}
	const inDoubtFlag = flag(args, "in-doubt");
	if (inDoubtFlag !== undefined && inDoubtFlag !== "rerun" && inDoubtFlag !== "stop") {
		io.stderr("pi-flows: --in-doubt takes `rerun` or `stop`");
		return 2;
	}
	const ask = terminalAsk();
	const journal = readJournal(`${runDir}/journal.jsonl`);
	const state = journal.ok ? journalState(journal.entries) : undefined;
	let inDoubt: InDoubt = (inDoubtFlag as InDoubt | undefined) ?? "stop";
	if (state?.inDoubt.length) {
		io.stderr(
			`pi-flows: in doubt: ${state.inDoubt.join(", ")} was cut after calling a tool that writes; its edits may be in the tree`,
		);
		if (!inDoubtFlag && ask.somebodyThere) {
			const rl = createInterface({ input: process.stdin, output: process.stderr });
			const a = (await rl.question("run it again from its start? [y/N] ")).trim().toLowerCase();
			rl.close();
			inDoubt = a === "y" || a === "yes" ? "rerun" : "stop";
		}
	}
	const budget = budgetFlags(args, snap.value.settings.budget);
	if (!budget.ok) {
		io.stderr(`pi-flows: ${budget.error}`);
		return 2;
	}
	const timeoutText = flag(args, "timeout");
	const timeoutMs = timeoutText === undefined ? undefined : parseDuration(timeoutText);
	if (timeoutText !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows: ${durationFlagError("--timeout", timeoutText)}`);
		return 2;
	}
	const scriptSetting = snap.value.settings.script;
	const script = scriptSetting ? readScript(scriptSetting.text, scriptSetting.file).value : undefined;
	const transport = transportFlags(args);
	if (!transport.ok) {
		io.stderr(`pi-flows: ${transport.error}`);
		return 2;
	}
	const host = await openHost({
		cwd: io.cwd,
		agentDir: io.agentDir,
		projectTrusted: cliTrusted(args, io),
		...(script ? { script } : {}),
		...(transport.value ? { transport: transport.value } : {}),
	});
	const world = terminalWorld(io);
	io.stderr(
		`pi-flows: resuming ${snap.value.flow.name} in ${displayPath(runDir, io.cwd)}${state?.cut.length ? `, running again ${state.cut.join(", ")}` : ""}`,
	);
	try {
		const outcome = await resumeRun({
			runDir,
			cwd: io.cwd,
			handoff: (
				await resolveHandoffPolicy({
					cwd: io.cwd,
					agentDir: io.agentDir,
					env: io.env,
					projectTrusted: cliTrusted(args, io),
				})
			).policy,
			spawn: host.spawn,
			models: snapshotModels(host, snap.value),
			somebodyThere: ask.somebodyThere,
			ask,
			git: world.git,
			check: world.check,
			signal: world.signal,
			onEvent: world.onEvent,
			inDoubt,
			keyDir: io.agentDir,
			takeLock: args.flags.has("take-lock"),
			onNote: (line) => io.stderr(`pi-flows: ${line}`),
			...(budget.value ? { budget: budget.value } : {}),
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
		});
		if ("refused" in outcome) {
			io.stderr(`pi-flows: cannot resume: ${outcome.refused}`);
			return 2;
		}
		if (outcome.resumed?.changed) io.stderr(`pi-flows: ${outcome.resumed.changed}`);
		return report(outcome, args, io);
	} finally {
		await world.done();
	}
}
