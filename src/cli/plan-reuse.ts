/**
 * `pi-flows plan <flow> [input] --reuse [last|RUN]`: before a token is spent, which visits a run reusing
 * from RUN would take, which would play and which read an output that may change, each with what it spent
 * in RUN ("runs 2 of 13 visits, about 1.7k tokens"). Zero model calls: the walk runs on dry ports (see
 * `planReuse`). Without an input, the earlier run's; without `--model`, the earlier run's models.
 */
import type { CheckedFlow } from "../language/index.ts";
import { createGitPort, prepareRun, type ResolveModel, resolveModels } from "../engine/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { chainRunOptions, readInput } from "../launch/index.ts";
import { findRun, planReuse, type ReusePlan, readRun, showReusePlan } from "../reuse/index.ts";
import { runsHome } from "../runs/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** What the plan needs of pi: resolving models, and the built-in tools' schemas. */
export interface PlanHost {
	resolveModel: ResolveModel;
	toolSchemas(names: readonly string[]): Readonly<Record<string, unknown>>;
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
	const found = findRun(flag(args, "reuse"), home, flow.name.value, io.cwd, io.agentDir);
	const read = found.ok ? readRun(found.runDir, io.agentDir) : found;
	if (!found.ok || !read.ok) {
		io.stderr(`pi-flows plan: ${read.ok ? "" : read.error}`);
		return { ok: false, code: 2 };
	}
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
		from: found.runDir,
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
		text: `${showReusePlan(plan, displayPath(found.runDir, io.cwd))}${said ? `\n${said.trim()}` : ""}`,
	};
}
