/**
 * The flags a run is launched with (`--timeout`, `--idle-timeout`, the budget, the transport retries,
 * `--model`, `--script`), read once for every surface that starts runs from a command line: `pi-flows
 * run` and `chain`, and `pi-flows mcp`, which takes them for every run it starts.
 */
import { durationFlagError, parseDuration } from "../language/syntax/index.ts";
import type { RunFlags } from "../launch/index.ts";
import { traceparentFromEnv } from "../telemetry/index.ts";
import { type Args, flag } from "./args.ts";
import { budgetFlags, transportFlags } from "./launch.ts";

export type { RunFlags };

/** The launch flags of `args`, or the first one that does not read (its message names the flag). */
export function readRunFlags(args: Args): { ok: true; value: RunFlags } | { ok: false; error: string } {
	const idleText = flag(args, "idle-timeout");
	const idleMs = idleText === undefined ? undefined : parseDuration(idleText);
	if (idleText !== undefined && idleMs === undefined)
		return { ok: false, error: durationFlagError("--idle-timeout", idleText) ?? `--idle-timeout: \`${idleText}\`` };
	const timeoutText = flag(args, "timeout");
	const timeoutMs = timeoutText === undefined ? undefined : parseDuration(timeoutText);
	if (timeoutText !== undefined && timeoutMs === undefined)
		return { ok: false, error: durationFlagError("--timeout", timeoutText) ?? `--timeout: \`${timeoutText}\`` };
	const budget = budgetFlags(args, undefined);
	if (!budget.ok) return budget;
	const transport = transportFlags(args);
	if (!transport.ok) return transport;
	const model = flag(args, "model");
	const script = flag(args, "script");
	return {
		ok: true,
		value: {
			...(timeoutMs !== undefined ? { timeoutMs } : {}),
			...(idleMs !== undefined ? { idleMs } : {}),
			...(budget.value ? { budget: budget.value } : {}),
			...(transport.value ? { transport: transport.value } : {}),
			...(model ? { model } : {}),
			...(script ? { script } : {}),
		},
	};
}

/**
 * The runner's trace option for a caller's `TRACEPARENT` (a CI job or a script that wraps the command in a
 * span of its own): the life started here is drawn inside the caller's trace.
 */
export function parentTrace(env: NodeJS.ProcessEnv): { telemetry?: { parent: string } } {
	const parent = traceparentFromEnv(env);
	return parent ? { telemetry: { parent } } : {};
}
