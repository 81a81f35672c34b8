/**
 * `pi-flows resume [run]`: continues a run from its journal, the newest resumable run of this folder when
 * none is named. The snapshot runs, not the disk (a flow edited since is reported in one line); a turn
 * cut after it may have written to the tree is in doubt: asked at a terminal, else `--in-doubt`.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import { newestResumable, resumeRun, runsHome, type InDoubt } from "../runs/index.ts";
import { openHost } from "../pi/index.ts";
import { prepareResume } from "../launch/index.ts";
import { withSubagentTool } from "../delegate/index.ts";
import { type Args, flag } from "./args.ts";
import { commandAsk, terminalAsk } from "./ask.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { budgetFlags, report, terminalWorld, transportFlags } from "./launch.ts";
import { durationFlagError, parseDuration } from "../language/syntax/index.ts";
import { displayPath } from "./output.ts";
import { parentTrace } from "./run-flags.ts";
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
	const inDoubtFlag = flag(args, "in-doubt");
	if (inDoubtFlag !== undefined && inDoubtFlag !== "rerun" && inDoubtFlag !== "stop") {
		io.stderr("pi-flows: --in-doubt takes `rerun` or `stop`");
		return 2;
	}
	const budget = budgetFlags(args, undefined);
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
	const transport = transportFlags(args);
	if (!transport.ok) {
		io.stderr(`pi-flows: ${transport.error}`);
		return 2;
	}
	const prep = await prepareResume(runDir, {
		keyDir: io.agentDir,
		openHost: (script, policy) =>
			openHost({
				cwd: io.cwd,
				agentDir: io.agentDir,
				projectTrusted: cliTrusted(args, io),
				...(script ? { script } : {}),
				...(policy ? { transport: policy } : {}),
			}),
		...(transport.value ? { transport: transport.value } : {}),
		...(budget.value ? { budget: budget.value } : {}),
	});
	if (!prep.ok) {
		io.stderr(`pi-flows: ${prep.error}`);
		return 2;
	}
	const ask = commandAsk(args.flags.has("ask-web"));
	let inDoubt: InDoubt = (inDoubtFlag as InDoubt | undefined) ?? "stop";
	if (prep.inDoubt.length) {
		io.stderr(
			`pi-flows: in doubt: ${prep.inDoubt.join(", ")} was cut after calling a tool that writes; its edits may be in the tree`,
		);
		if (!inDoubtFlag && terminalAsk().somebodyThere) {
			const rl = createInterface({ input: process.stdin, output: process.stderr });
			const a = (await rl.question("run it again from its start? [y/N] ")).trim().toLowerCase();
			rl.close();
			inDoubt = a === "y" || a === "yes" ? "rerun" : "stop";
		}
	}
	const world = terminalWorld(io);
	io.stderr(
		`pi-flows: resuming ${prep.snapshot.flow.name} in ${displayPath(runDir, io.cwd)}${prep.cut.length ? `, running again ${prep.cut.join(", ")}` : ""}`,
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
			spawn: withSubagentTool(
				prep.host,
				io.cwd,
				{ project: cliTrusted(args, io) },
				prep.snapshot.settings.model ?? (prep.snapshot.settings.script ? "scripted" : undefined),
			),
			...(prep.toolSchemas ? { toolSchemas: prep.toolSchemas } : {}),
			reuseFrom: prep.reuseFrom,
			models: prep.models,
			somebodyThere: ask.somebodyThere,
			ask,
			git: world.git,
			check: world.check,
			signal: world.signal,
			onEvent: world.onEvent,
			inDoubt,
			keyDir: io.agentDir,
			takeLock: args.flags.has("take-lock"),
			...parentTrace(io.env),
			onNote: (line) => io.stderr(`pi-flows: ${line}`),
			...(prep.budget ? { budget: prep.budget } : {}),
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
