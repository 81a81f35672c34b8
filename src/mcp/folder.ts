/**
 * The run-folder backend of the MCP server: a run starts through the same preparation and run folder as
 * `pi-flows run` (`prepareLaunch`, then `startRun`) and resumes through the same code as `pi-flows
 * resume` (`prepareResume`, then `resumeRun`), in this process; a run started elsewhere (an earlier
 * server, a terminal) is read from its folder when its seal says this person made it here.
 *
 *   folderBackend(settings).launch(flow, "Ada", { attended: true })  →  { ok: true, run }  (folder made, locked)
 */
import { basename, join, relative, resolve } from "node:path";
import { createBashCheck, createGitPort, type GitPort } from "../engine/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { type Launch, prepareLaunch, prepareResume } from "../launch/index.ts";
import { openHost } from "../pi/index.ts";
import {
	type InDoubt,
	journalState,
	listRunFolders,
	readJournal,
	type Refusal,
	resumeRun,
	type RunOutcome,
	runsHome,
	startRun,
	usageOf,
} from "../runs/index.ts";
import type { FlowEvent } from "../runtime/index.ts";
import { isHandle, type LaunchCall, type LaunchRefusal, type Read, type RunBackend, type Started } from "./backend.ts";
import { type LiveRun, type LiveState, liveState, QUESTION_GRACE_MS } from "./live-run.ts";
import { diskReport } from "./results.ts";
import type { McpSettings } from "./settings.ts";
import { withSubagentTool } from "../delegate/index.ts";

/** The folder backend over the server's runs folder. */
export function folderBackend(settings: McpSettings): RunBackend {
	const { cwd, agentDir, flags } = settings;
	const home = runsHome(cwd, settings.runsDir);
	const host = (script?: Parameters<typeof openHost>[0]["script"], transport?: typeof flags.transport) =>
		openHost({
			cwd,
			agentDir,
			projectTrusted: settings.project,
			...(script ? { script } : {}),
			...(transport ? { transport } : {}),
		});
	const dirOf = (handle: string): string | undefined => {
		if (!isHandle(handle)) return undefined;
		const dir = resolve(home, handle);
		return listRunFolders(home).includes(dir) ? dir : undefined;
	};
	const notFound = (handle: string): string =>
		isHandle(handle)
			? `no run \`${handle}\` in ${relative(cwd, home) || home}`
			: `\`${handle}\` is not a run handle (a run tool returns one as \`run\`)`;

	return {
		name: "folder",
		async launch(flow: CheckedFlow, input: Value, options: LaunchCall): Promise<Started> {
			const git = createGitPort();
			const prepared = await prepareFlow(settings, flow, options.attended, git);
			if (!prepared.ok) return prepared;
			const handoff = await resolveHandoffPolicy({ cwd, agentDir, env: settings.env });
			for (const w of handoff.warnings) settings.note(w);
			const state = liveState(settings.graceMs ?? QUESTION_GRACE_MS, options.attended);
			let named: (dir: string) => void = () => {};
			const folder = new Promise<string>((r) => {
				named = r;
			});
			const done = startRun(flow, input, {
				...prepared.runOptions,
				runsHome: home,
				handoff: handoff.policy,
				keyDir: agentDir,
				spawn: withSubagentTool(prepared.host, cwd, { project: settings.project }, prepared.runOptions.model),
				cwd,
				signal: state.controller.signal,
				ask: state.port,
				git,
				check: createBashCheck(),
				// The snapshot records whether a person could answer when the run began, as the CLI's does.
				somebodyThere: options.attended,
				...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
				...(flags.idleMs !== undefined ? { idleTimeoutMs: flags.idleMs } : {}),
				onEvent: state.onEvent,
				onRunDir: named,
				...(options.traceparent ? { telemetry: { parent: options.traceparent } } : {}),
			});
			const first = await Promise.race([folder, done]);
			if (typeof first !== "string") {
				const why = "refused" in first ? first.refused : "the run ended before its folder was made";
				return { ok: false, stage: "run", faults: [], lines: [why] };
			}
			return { ok: true, run: folderRun(first, flow.name.value, state, done) };
		},

		async resume(handle: string, options: LaunchCall & { inDoubt?: InDoubt }): Promise<Started> {
			const runDir = dirOf(handle);
			if (!runDir) return { ok: false, stage: "run", faults: [], lines: [notFound(handle)] };
			const prep = await prepareResume(runDir, {
				keyDir: agentDir,
				openHost: host,
				...(flags.transport ? { transport: flags.transport } : {}),
				...(flags.budget ? { budget: flags.budget } : {}),
			});
			if (!prep.ok) return { ok: false, stage: "run", faults: [], lines: [prep.error] };
			const handoff = await resolveHandoffPolicy({ cwd, agentDir, env: settings.env });
			const state = liveState(settings.graceMs ?? QUESTION_GRACE_MS, options.attended);
			let began: () => void = () => {};
			const started = new Promise<"began">((r) => {
				began = () => r("began");
			});
			const onEvent = (event: FlowEvent) => {
				began();
				state.onEvent(event);
			};
			const done = resumeRun({
				runDir,
				cwd,
				handoff: handoff.policy,
				spawn: withSubagentTool(
					prep.host,
					cwd,
					{ project: settings.project },
					prep.snapshot.settings.model ?? (prep.snapshot.settings.script ? "scripted" : undefined),
				),
				...(prep.toolSchemas ? { toolSchemas: prep.toolSchemas } : {}),
				reuseFrom: prep.reuseFrom,
				models: prep.models,
				somebodyThere: options.attended,
				ask: state.port,
				git: createGitPort(),
				check: createBashCheck(),
				signal: state.controller.signal,
				onEvent,
				inDoubt: options.inDoubt ?? "stop",
				keyDir: agentDir,
				...(options.traceparent ? { telemetry: { parent: options.traceparent } } : {}),
				onNote: (line) => settings.note(line),
				...(prep.budget ? { budget: prep.budget } : {}),
				...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
				...(flags.idleMs !== undefined ? { idleTimeoutMs: flags.idleMs } : {}),
			});
			// A refusal (a run that ended well, one in doubt, a lock held) comes back before any visit starts.
			const first = await Promise.race([started, done]);
			if (first !== "began" && "refused" in first) {
				const why = first.refused.replace("--in-doubt rerun", '`"inDoubt": "rerun"`');
				return { ok: false, stage: "run", faults: [], lines: [`cannot resume: ${why}`] };
			}
			return { ok: true, run: folderRun(runDir, prep.snapshot.flow.name, state, done) };
		},

		async read(handle: string): Promise<Read> {
			const dir = dirOf(handle);
			if (!dir) return { ok: false, error: notFound(handle) };
			return diskReport(dir, cwd, agentDir);
		},

		async list(limit: number): Promise<string[]> {
			return listRunFolders(home)
				.slice(0, limit)
				.map((d) => basename(d));
		},

		async stopElsewhere(handle: string): Promise<Read> {
			const read = await this.read(handle);
			if (read.ok && read.report.status === "running")
				return { ok: false, error: `${read.report.run} runs in another process; stop it there` };
			return read;
		},

		async close(): Promise<void> {},
	};
}

/**
 * A checked flow prepared as `pi-flows run` prepares it, with the server's run flags: its script, run
 * stage, host and models. `attended`: the starting client answers forms, so a flow that must ask may start.
 */
export async function prepareFlow(
	settings: McpSettings,
	flow: CheckedFlow,
	attended: boolean,
	git: GitPort,
): Promise<Extract<Launch<Host>, { ok: true }> | LaunchRefusal> {
	const { cwd, agentDir, flags } = settings;
	const prepared = await prepareLaunch(flow, {
		cwd,
		openHost: (script, transport) =>
			openHost({
				cwd,
				agentDir,
				projectTrusted: settings.project,
				...(script ? { script } : {}),
				...(transport ? { transport } : {}),
			}),
		...(flags.model ? { model: flags.model } : {}),
		...(flags.script ? { script: flags.script } : {}),
		...(flags.budget ? { budget: flags.budget } : {}),
		...(flags.transport ? { transport: flags.transport } : {}),
		git,
		somebodyThere: attended,
	});
	if (prepared.ok) return prepared;
	return {
		ok: false,
		stage: prepared.stage,
		faults: prepared.faults,
		lines: prepared.unreadable ? [`cannot read the script ${prepared.unreadable}`] : prepared.lines,
	};
}

type Host = Awaited<ReturnType<typeof openHost>>;

/** A run of this process, as the tools follow it. */
function folderRun(runDir: string, flow: string, state: LiveState, life: Promise<RunOutcome | Refusal>): LiveRun {
	const done = life.then((outcome) => {
		if ("refused" in outcome) throw new Error(`the run was refused after it started: ${outcome.refused}`);
		state.end(outcome);
		return outcome;
	});
	// A run's end is read through `outcome()`; an unexpected rejection must not go unhandled meanwhile.
	done.catch(() => {});
	return {
		id: basename(runDir),
		backend: "folder",
		runDir,
		flow,
		startedAt: Date.now(),
		progress: state.progress,
		usage: () => {
			const journal = readJournal(join(runDir, "journal.jsonl"));
			if (!journal.ok) return undefined;
			const u = usageOf(journal.entries).total;
			const turns = journalState(journal.entries).spent.turns;
			return { tokens: u.totalTokens, cost: u.cost, turns, ms: Math.round(u.ms) };
		},
		asks: state.asks,
		pending: state.pending,
		done,
		outcome: state.outcome,
		stopping: () => state.controller.signal.aborted,
		attach: state.attach,
		answer: state.answer,
		stop: () => state.controller.abort(),
		release: async () => {
			state.controller.abort();
			await done.catch(() => undefined);
		},
	};
}
