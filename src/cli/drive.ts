/**
 * `pi-flows drive TASK.md`: runs the chain driver unattended. Exit 0 complete, 4 blocked (a person must
 * act), 3 a turn ended with no handoff even after its recovery turn, 2 MAX_TURNS reached, bad usage or
 * refused, 130 stopped. Run again after any of these but `complete`, it continues the recorded chain and
 * says where it picked up; `--fresh` starts the task over.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadRoster, nearestProjectDir } from "../agents/index.ts";
import { PROJECT_TRUST } from "../load/index.ts";
import { faultText } from "../faults/index.ts";
import { drive, type DriveEnd, type DriveResume } from "../drive/index.ts";
import { resolveHandoffPolicy } from "../handoff/index.ts";
import { openHost, readScript } from "../pi/index.ts";
import { withSubagentTool } from "../delegate/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { displayPath } from "./output.ts";
import { formatUsage } from "../runtime/index.ts";

const EXIT: Record<DriveEnd, number> = {
	complete: 0,
	"no-handoff": 3,
	blocked: 4,
	"max-turns": 2,
	stopped: 130,
	refused: 2,
};

/** Runs `drive`. */
export async function driveCommand(args: Args, io: Io): Promise<number> {
	const taskFile = args.positionals[0];
	if (!taskFile) {
		io.stderr(
			"usage: pi-flows drive TASK.md [--agent worker] [--model M] [--script FILE] [--max-turns N] [--log-dir DIR] [--fresh]",
		);
		return 2;
	}
	let task: string;
	try {
		task = readFileSync(resolve(io.cwd, taskFile), "utf8");
	} catch {
		io.stderr(`pi-flows: cannot read ${taskFile}`);
		return 2;
	}
	const maxText = flag(args, "max-turns") ?? io.env.MAX_TURNS;
	const maxTurns = maxText === undefined ? 10 : Number(maxText);
	if (!Number.isInteger(maxTurns) || maxTurns < 1) {
		io.stderr(`pi-flows: MAX_TURNS (or --max-turns) must be a whole number of at least 1, not \`${maxText}\``);
		return 2;
	}
	const agentName = flag(args, "agent") ?? "worker";
	const agent = loadRoster(io.cwd, { project: cliTrusted(args, io) }, io.env).get(agentName);
	if (agent?.kind !== "agent") {
		// The one rule for project files: an unread project agent is named, with how to trust it.
		const dir = !agent && !cliTrusted(args, io) ? nearestProjectDir(io.cwd, "agents") : undefined;
		const unread =
			dir && existsSync(join(dir, `${agentName}.md`))
				? `: it is a project agent (${displayPath(join(dir, `${agentName}.md`), io.cwd)}) and was not read; ${PROJECT_TRUST.replace("project flows", "project agents")}`
				: "";
		io.stderr(`pi-flows: no usable agent \`${agentName}\`${agent ? ` (${agent.cause})` : unread}`);
		return 2;
	}
	const handoff = await resolveHandoffPolicy({
		cwd: io.cwd,
		agentDir: io.agentDir,
		env: io.env,
		projectTrusted: cliTrusted(args, io),
	});
	for (const w of handoff.warnings) io.stderr(`pi-flows: ${w}`);
	if (!handoff.policy.enabled) {
		const where = handoff.source === "env" ? "HANDOFF_ENABLED" : `enable_handoff in the ${handoff.source} settings`;
		io.stderr(
			`pi-flows: the handoff protocol is switched off (${where}); the driver chains turns by their handoff ` +
				"documents, so it cannot run. HANDOFF_ENABLED=true turns it on for one run.",
		);
		return 2;
	}
	const scriptPath = flag(args, "script");
	let scriptText: string | undefined;
	if (scriptPath) {
		try {
			scriptText = readFileSync(resolve(io.cwd, scriptPath), "utf8");
		} catch (error) {
			const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
			io.stderr(`pi-flows: cannot read the script ${scriptPath}: ${why}`);
			return 2;
		}
	}
	const script = scriptPath && scriptText !== undefined ? readScript(scriptText, scriptPath) : undefined;
	if (script && !script.value) {
		io.stderr(script.faults.map((f) => `${scriptPath}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`).join("\n"));
		return 2;
	}
	const host = await openHost({
		cwd: io.cwd,
		agentDir: io.agentDir,
		projectTrusted: cliTrusted(args, io),
		...(script?.value ? { script: script.value } : {}),
	});
	const model = flag(args, "model") ?? (script ? "scripted" : undefined);
	const resolved = host.resolveModel(model ?? agent.model);
	const refused = resolved.ok
		? await host.missingCredentials([{ node: agent.name, ref: resolved.value.ref }])
		: [resolved.error];
	if (refused.length) {
		for (const e of refused) io.stderr(`pi-flows: ${e}`);
		return 2;
	}
	const logDirFlag = flag(args, "log-dir");
	const controller = new AbortController();
	const stop = () => controller.abort();
	process.once("SIGINT", stop);
	try {
		const out = await drive(task, {
			cwd: io.cwd,
			spawn: withSubagentTool(host, io.cwd, { project: cliTrusted(args, io) }, model),
			agent,
			...(model ? { model } : {}),
			maxTurns,
			...(logDirFlag ? { logDir: resolve(io.cwd, logDirFlag) } : {}),
			signal: controller.signal,
			handoff: handoff.policy,
			fresh: args.flags.has("fresh"),
			onResume: (r) => io.stderr(pickedUp(r, io.cwd)),
			onNote: (note) => io.stderr(`pi-flows: ${note}`),
			keyDir: io.agentDir,
			onTurn: (t) =>
				io.stderr(
					`turn ${t.n} · ${t.outcome}${t.doc ? ` · ${t.doc.status}` : ""}${t.error ? ` · ${t.error}` : ""} · ${formatUsage(t.usage)}`,
				),
		});
		if (out.end === "refused") {
			io.stderr(`pi-flows: ${out.message ?? "refused"}`);
			return EXIT.refused;
		}
		if (out.alreadyComplete) {
			const logs = displayPath(out.logDir, io.cwd);
			io.stderr(
				`pi-flows: this task's drive already completed (logs in ${logs}); nothing was run. --fresh runs it again.`,
			);
			return EXIT.complete;
		}
		io.stderr(
			`${out.end} after ${out.turns.length} turn(s) · logs in ${displayPath(out.logDir, io.cwd)} · ${formatUsage(out.usage)}`,
		);
		const last = out.turns[out.turns.length - 1];
		if (out.end === "blocked" && last?.doc?.blocked) io.stderr(`blocked: ${last.doc.blocked}`);
		return EXIT[out.end];
	} finally {
		process.removeListener("SIGINT", stop);
	}
}

/** The line a restarted drive opens with: where it picked up and from what. */
function pickedUp(r: DriveResume, cwd: string): string {
	const where = displayPath(r.logDir, cwd);
	const before = r.previousEnd ? ` (the last run ended ${r.previousEnd})` : "";
	const recorded = `${r.recorded} turn(s) recorded in ${where}${before}`;
	if (r.redo) return `resuming: ${recorded}; turn ${r.n} was cut off before it recorded a handoff and runs again`;
	const source = r.from === "HANDOFF.md" ? "HANDOFF.md (saved just before the stop)" : "the recorded handoff";
	const from = r.doc ? `from ${source}, ${r.doc.by} ${r.doc.status}` : "from the task";
	return `resuming: ${recorded}; turn ${r.n} starts ${from}`;
}
