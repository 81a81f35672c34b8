/**
 * What `run` and `resume` share once a flow is ready: the world's ports, SIGINT handling (every session
 * disposed, the run left resumable), progress on stderr, and how the outcome is printed and exits.
 */
import { createBashCheck, createGitPort, formatAbsorbed } from "../engine/index.ts";
import type { Budget } from "../engine/index.ts";
import { reuseLine, reuseSummary } from "../identity/index.ts";
import { decidedByFlow, type RunOutcome } from "../runs/index.ts";
import { fanOutEvents, type FlowEvent } from "../runtime/index.ts";
import { formatUsage } from "../runtime/index.ts";
import type { TransportPolicy } from "../runtime/index.ts";
import { readTransportFlags } from "../launch/index.ts";
import { paneWatcher } from "../panes/index.ts";
import { quitAfterExport } from "../telemetry/export/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath, progressReporter } from "./output.ts";

/** The ports a terminal run uses, and the stop wiring. */
export function terminalWorld(io: Io) {
	const controller = new AbortController();
	let interrupts = 0;
	const onSigint = () => {
		interrupts++;
		io.stderr(
			interrupts === 1
				? "pi-flows: stopping: closing every session (Ctrl-C again to quit at once)"
				: "pi-flows: quitting",
		);
		// Quitting at once still exports what was traced, the spans still open ended as cut.
		if (interrupts > 1) void quitAfterExport(130);
		controller.abort();
	};
	process.on("SIGINT", onSigint);
	process.on("SIGTERM", onSigint);
	const reporter = progressReporter(io.stderr, (p) => displayPath(p, io.cwd));
	// `pane: true` visits open a tmux (or herdr) pane following them; elsewhere one note on stderr.
	const panes = paneWatcher({ env: io.env, note: (text) => io.stderr(`pi-flows: note: ${text}`) });
	const onEvent = fanOutEvents(reporter, panes.onEvent, (e: FlowEvent) => {
		if (e.type === "budget_warning") io.stderr(`pi-flows: budget warning: ${e.spent}`);
		if (e.type === "budget_exhausted")
			io.stderr(`pi-flows: ${e.reason}: no new turn starts; running turns are told to land`);
		if (e.type === "budget_unpriced") io.stderr(`pi-flows: budget: ${e.reason}`);
	});
	return {
		signal: controller.signal,
		git: createGitPort(),
		check: createBashCheck(),
		onEvent,
		/** Whoever opens, closes: every pane still open, then the signal handlers. */
		done: async () => {
			await panes.close();
			process.removeListener("SIGINT", onSigint);
			process.removeListener("SIGTERM", onSigint);
		},
	};
}

/** Prints an outcome and gives the exit code: 0 ok, 1 failed (resumable when it says so). */
export function printOutcome(outcome: RunOutcome, args: Args, io: Io): number {
	const { result, runDir } = outcome;
	const where = displayPath(runDir, io.cwd);
	const reused = reuseSummary(result.visits);
	if (args.flags.has("json"))
		io.stdout(
			JSON.stringify(
				{
					...result,
					runDir: where,
					...(outcome.resumed ? { resumed: outcome.resumed } : {}),
					...(reused ? { reuse: reused } : {}),
				},
				null,
				2,
			),
		);
	else if (result.ok)
		io.stdout(typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2));
	io.stderr(
		`${result.ok ? "✓" : "✗"} ${result.flow} · ${result.visits.length} visit(s) · ${formatUsage(result.usage)}${reused ? ` · ${reuseLine(reused)}` : ""} · ${where}`,
	);
	if (result.absorbed)
		io.stderr(
			`pi-flows: ${formatAbsorbed(result.absorbed)}: ${result.absorbed.visits
				.slice(0, 3)
				.map((v) => `${v.path} ${v.kind}: ${v.message}`)
				.join("; ")}${result.absorbed.count > 3 ? "; …" : ""}`,
		);
	for (const problem of outcome.unwritten ?? [])
		io.stderr(
			`pi-flows: could not write ${problem} (the journal keeps the run; \`pi-flows report\` rebuilds what is missing)`,
		);
	if (!result.ok) {
		// The error names its visit first (`review: provider: …`); the line already says where.
		const why =
			result.failedAt && result.error?.startsWith(`${result.failedAt}: `)
				? result.error.slice(result.failedAt.length + 2)
				: result.error;
		io.stderr(`pi-flows: the run failed at ${result.failedAt}: ${why}`);
		const cause = result.visits.findLast((v) => v.path === result.failedAt)?.errorKind;
		if (decidedByFlow(result.errorKind, cause)) {
			io.stderr(
				"pi-flows: the flow itself decided this, so a resume would decide the same: change the flow, the script or the input and run again",
			);
		} else io.stderr(`pi-flows: \`pi-flows resume ${where}\` picks it up at ${result.failedAt}`);
		return 1;
	}
	return 0;
}

/**
 * The run's transport retries: `--retries N` tries per model request (the first included) and
 * `--retry-wait D` for all of one request's waits together; a flow's `transport:` goes over these.
 */
export function transportFlags(
	args: Args,
): { ok: true; value?: Partial<TransportPolicy> } | { ok: false; error: string } {
	return readTransportFlags(flag(args, "retries"), flag(args, "retry-wait"));
}

/** The launch budget: `--budget-tokens`, `--budget-cost`, `--budget-turns`, each replacing the flow's. */
export function budgetFlags(
	args: Args,
	flowBudget: Budget | undefined,
): { ok: true; value?: Budget } | { ok: false; error: string } {
	const out: Budget = { ...(flowBudget ?? {}) };
	for (const [name, key, integer] of [
		["budget-tokens", "tokens", true],
		["budget-cost", "cost", false],
		["budget-turns", "turns", true],
	] as const) {
		const text = flag(args, name);
		if (text === undefined) continue;
		const n = Number(text);
		if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
			return { ok: false, error: `--${name} takes a ${integer ? "whole number" : "number"} above 0, not \`${text}\`` };
		out[key] = n;
	}
	return { ok: true, ...(Object.keys(out).length ? { value: out } : {}) };
}
