/**
 * `pi-flows plan <flow> [input] --reuse [last|RUN] [--rerun-from NODE]`: before a token is spent, which
 * visits a run reusing from RUN would take, which would play and which read an output that may change, each
 * with what it spent in RUN ("runs 2 of 13 visits, about 1.7k tokens"). Zero model calls: the walk runs on
 * dry ports (see `planReuse`). Without an input, the earlier run's; without `--model`, the earlier run's
 * models. RUN is a run folder, or with `--backend dbos` a run of the database (read as its workers read it).
 */
import type { CheckedFlow } from "../language/index.ts";
import { createGitPort, prepareRun, type ResolveModel, resolveModels } from "../engine/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { chainRunOptions, readInput } from "../launch/index.ts";
import { findRun, planReuse, type ReusePlan, readRun, showReusePlan } from "../reuse/index.ts";
import { type JournalEntry, runsHome, type Snapshot } from "../runs/index.ts";
import { backendOf } from "./backend.ts";
import { rerunOf } from "./rerun-flag.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** What the plan needs of pi: resolving models, and the built-in tools' schemas. */
export interface PlanHost {
	resolveModel: ResolveModel;
	toolSchemas(names: readonly string[]): Readonly<Record<string, unknown>>;
}

/** The earlier run a plan reads: its journal entries, its snapshot, and how the new run would name it. */
export interface EarlierRun {
	entries: readonly JournalEntry[];
	snapshot: Snapshot;
	/** A run folder, or a database run id (as `settings.reuse` records it). */
	from: string;
	/** How the person reads it. */
	shown: string;
}

/** The reuse plan, or the exit code after saying why there is none. */
export async function reusePlan(
	flow: CheckedFlow,
	rawInput: string,
	args: Args,
	io: Io,
	host: PlanHost,
): Promise<{ ok: true; plan: ReusePlan; text: string } | { ok: false; code: number }> {
	const home = runsHome(io.cwd, flag(args, "runs-dir"));
	const rerun = rerunOf(args, flow);
	const earlier = rerun.ok ? await earlierRun(args, io, home, flow) : rerun;
	if (!rerun.ok || "error" in earlier) {
		io.stderr(`pi-flows plan: ${"error" in earlier ? earlier.error : ""}`);
		return { ok: false, code: 2 };
	}
	const read = earlier;
	const input = rawInput
		? readInput(rawInput, flow.input.value, {
				flow: flow.name.value,
				usage: `pi-flows plan ${flow.name.value} <input>`,
			})
		: { ok: true as const, value: read.snapshot.input };
	if (!input.ok) {
		io.stderr(`pi-flows plan: ${input.error}`);
		return { ok: false, code: 2 };
	}
	// The run a person would type next: the earlier run's model unless one is given here.
	const settings = read.snapshot.settings;
	const model = flag(args, "model") ?? settings.model ?? (settings.script ? "scripted" : undefined);
	const models = resolveModels(flow, host.resolveModel, model);
	if (!models.ok) {
		io.stderr(`pi-flows plan: ${models.errors.join("; ")}`);
		return { ok: false, code: 2 };
	}
	const git = createGitPort();
	const stage = await prepareRun(flow, { cwd: io.cwd, somebodyThere: true, git });
	const handoff = await resolveHandoffPolicy({ cwd: io.cwd, agentDir: io.agentDir, env: io.env });
	const plan = await planReuse(flow, input.value, {
		entries: read.entries,
		from: read.from,
		...(rerun.value ? { force: rerun.value } : {}),
		cwd: io.cwd,
		models: models.models,
		git,
		handoff: handoff.policy,
		plugins: chainRunOptions(flow, io.cwd).plugins,
		...(stage.ok ? { scripts: stage.scripts } : {}),
		toolSchemas: (names) => host.toolSchemas(names),
		leaveOut: [home],
	});
	const said = model ? ` (models as a run with --model ${model})` : "";
	return {
		ok: true,
		plan,
		text: `${showReusePlan(plan, read.shown)}${said ? `\n${said.trim()}` : ""}`,
	};
}

/** The run `--reuse` names: a run folder, or with `--backend dbos` a run of the database. */
async function earlierRun(
	args: Args,
	io: Io,
	home: string,
	flow: CheckedFlow,
): Promise<EarlierRun | { error: string }> {
	const backend = backendOf(args, io);
	if (!backend.ok) return { error: backend.error };
	if (backend.value === "folder") return folderRun(args, io, home, flow);
	// The database's client is loaded only for a plan that reads a run there.
	const { databaseRun } = await import("./distributed.ts");
	return databaseRun(args, io, flag(args, "reuse") ?? "last", flow.name.value);
}

/** The run folder `--reuse` names, read with its seal checked. */
function folderRun(args: Args, io: Io, home: string, flow: CheckedFlow): EarlierRun | { error: string } {
	const found = findRun(flag(args, "reuse"), home, flow.name.value, io.cwd, io.agentDir);
	if (!found.ok) return { error: found.error };
	const read = readRun(found.runDir, io.agentDir);
	if (!read.ok) return { error: read.error };
	return { ...read, from: found.runDir, shown: displayPath(found.runDir, io.cwd) };
}
