/**
 * `pi-flows plan <flow>`: what the flow would run, node by node, with each node's model, timeout and worst
 * case, before anything spawns. `--model` and `--timeout` show the plan a run with those options would
 * follow; `--json` prints the rows as data.
 */
import { formatFaults } from "./output.ts";
import { planFlow } from "../launch/index.ts";
import { budgetFlags } from "./launch.ts";
import { durationFlagError, parseDuration } from "../language/syntax/index.ts";
import { type Args, flag } from "./args.ts";
import { checkedFlowArg } from "./flow-arg.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { displayPath } from "./output.ts";
import { runsHome } from "../runs/index.ts";
import { reusePlan } from "./plan-reuse.ts";

/**
 * Runs `plan`: 0 with the plan on stdout, 2 when the flow is not found or does not check, or names a model
 * pi cannot resolve (each a fault at its column, with the nearest models).
 */
export async function planCommand(args: Args, io: Io): Promise<number> {
	const timeout = flag(args, "timeout");
	const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout);
	if (timeout !== undefined && timeoutMs === undefined) {
		io.stderr(`pi-flows plan: ${durationFlagError("--timeout", timeout)}`);
		return 2;
	}
	const launch = budgetFlags(args, undefined);
	if (!launch.ok) {
		io.stderr(`pi-flows plan: ${launch.error}`);
		return 2;
	}
	// With `--reuse`, the words after the flow are the planned run's input.
	const reusing = args.flags.has("reuse");
	const [flowName, ...inputWords] = args.positionals;
	const checked = checkedFlowArg("plan", reusing && flowName ? { ...args, positionals: [flowName] } : args, io);
	if (!checked.ok) return checked.code;
	const display = (p: string) => displayPath(p, io.cwd);
	// Names are resolved by pi's own resolver, as a run would, so the plan shows the model that would answer.
	// pi is loaded only here, once the flow checks: a plan names the model each name resolves to (docs/decisions.md).
	const { openHost, readScript } = await import("../pi/index.ts");
	// The embedded scripted model is pi-flows' own: a plan knows it without a script (a run needs `--script`).
	const script = readScript("turns: {}\n", "plan").value;
	const host = await openHost({
		cwd: io.cwd,
		agentDir: io.agentDir,
		projectTrusted: cliTrusted(args, io),
		...(script ? { script } : {}),
	});
	const model = flag(args, "model");
	const { json, text, unknown } = planFlow(checked.value, {
		resolveModel: host.resolveModel,
		...(model ? { model } : {}),
		...(timeoutMs !== undefined ? { timeoutMs } : {}),
		...(launch.value ? { budget: launch.value } : {}),
		runsHome: runsHome(io.cwd, flag(args, "runs-dir")),
		keyDir: io.agentDir,
		display,
	});
	const reuse = reusing ? await reusePlan(checked.value, inputWords.join(" "), args, io, host) : undefined;
	if (reuse && !reuse.ok) return reuse.code;
	io.stdout(
		args.flags.has("json")
			? JSON.stringify({ ...json, ...(reuse ? { reuse: reuse.plan } : {}) }, null, 2)
			: [text, reuse?.text].filter(Boolean).join("\n"),
	);
	if (unknown.length) {
		io.stderr(formatFaults(unknown, io.cwd));
		const names = `${unknown.length} model name${unknown.length === 1 ? "" : "s"}`;
		io.stderr(`pi-flows plan: ${names} pi cannot resolve; a run would refuse to start`);
		return 2;
	}
	return 0;
}
